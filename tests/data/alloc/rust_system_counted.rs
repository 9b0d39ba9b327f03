// SPDX-License-Identifier: MIT
//! rust_system_counted - a #[global_allocator] that counts its calls and forwards them to
//! std's System allocator, i.e. to glibc's malloc/calloc/realloc/free (posix_memalign or
//! aligned_alloc for over-aligned layouts). A tracer probing both Rust's __rust_* shims and
//! glibc's malloc sees every block twice unless the malloc made by the shim is counted as
//! nested: its figures for the shims must equal the printed ones, and no malloc block may
//! have the counting allocator among its callers.
//!
//! Build: rustc -C opt-level=1 -g -o rust_system_counted rust_system_counted.rs
//! Prints: "rust_system_counted: allocs A reallocs R bytes B" (allocs: alloc + alloc_zeroed;
//! bytes: their sizes plus reallocs' new sizes), counted up to the print.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

extern "C" {
    fn write(fd: i32, buf: *const u8, n: usize) -> isize;
}

struct Counted;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static REALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            ALLOCS.fetch_add(1, Relaxed);
            BYTES.fetch_add(l.size() as u64, Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            ALLOCS.fetch_add(1, Relaxed);
            BYTES.fetch_add(l.size() as u64, Relaxed);
        }
        p
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, l, new_size);
        if !q.is_null() {
            REALLOCS.fetch_add(1, Relaxed);
            BYTES.fetch_add(new_size as u64, Relaxed);
        }
        q
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}

#[global_allocator]
static GLOBAL: Counted = Counted;

struct StackBuf {
    buf: [u8; 128],
    len: usize,
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[repr(align(64))]
struct Aligned([u8; 256]);

fn main() {
    let mut v: Vec<u32> = Vec::new();
    for i in 0..500 {
        v.push(i);
    }
    let words: Vec<String> = (0..50).map(|i| format!("word{}", i)).collect();
    let zeros = vec![0u8; 4096];
    let aligned = Box::new(Aligned([1; 256]));
    let total = v.len() + words.len() + zeros.len() + aligned.0.len();
    drop((v, words, zeros, aligned));
    let mut out = StackBuf { buf: [0; 128], len: 0 };
    let _ = writeln!(
        out,
        "rust_system_counted: allocs {} reallocs {} bytes {} (work {})",
        ALLOCS.load(Relaxed),
        REALLOCS.load(Relaxed),
        BYTES.load(Relaxed),
        total
    );
    // SAFETY: out.buf[..out.len] is initialised; fd 1 is stdout.
    unsafe { write(1, out.buf.as_ptr(), out.len) };
}
