// SPDX-License-Identifier: MIT
//! rust_prefixed_alloc - a Rust program whose #[global_allocator] calls mimalloc's PREFIXED entry
//! points (mi_malloc, mi_zalloc, mi_realloc, mi_free and their _aligned forms) through FFI, the
//! shape of a Rust embedder with its own allocator. `malloc` itself stays glibc's: libc is linked
//! before libmimalloc (see the #[link] order below; DT_NEEDED libc.so.6 then libmimalloc.so.2),
//! so mimalloc's exported `malloc` is never called and a tracer probing `malloc` sees only the
//! few libc-internal allocations, none of this program's.
//!
//! The allocator counts its own calls and bytes in atomics; the program prints them (with
//! write(2), so printing allocates nothing) once its work is done. Counting follows DHAT: each
//! alloc, alloc_zeroed or realloc is one block of its (new) size. Calls before main (the runtime's
//! own allocations) are included; the few deallocations after the print are not.
//!
//! Build (verified with Debian's rustc 1.63, /usr/bin/rustc, and libmimalloc-dev 2.0.9):
//!   rustc -C opt-level=1 -g -o rust_prefixed_alloc rust_prefixed_alloc.rs
//! Printed here (same on every run):
//!   rust_prefixed_alloc: allocs 564 zeroed 1 reallocs 14 deallocs 561 bytes 59426 live 3/830 (work 1509147)
//!   (allocs counts alloc + alloc_zeroed; bytes covers allocs and reallocs' new sizes; live 3/830
//!   is the 777-byte leak plus two runtime blocks). A tracer's blocks/bytes for this program's
//!   allocator should be 564 + 14 = 578 blocks and 59426 bytes.
//! Valgrind 3.19 DHAT cannot give these figures. In libmimalloc.so.2, mi_malloc and malloc (and
//! mi_free and free, mi_realloc and realloc) are one address under two names, and Valgrind
//! replaces malloc/free in every loaded object by default; so `valgrind --tool=dhat
//! ./rust_prefixed_alloc` hands mi_free a block that mi_zalloc/mi_malloc_aligned made and aborts
//! ("m_mallocfree.c:278 (mk_plain_bszB): Assertion 'bszB != 0' failed", exit 1).
//! With --soname-synonyms=somalloc=nouserintercepts (replace only libc's) it runs, prints the
//! line above and reports libc's allocations alone: Total 2,104 bytes in 8 blocks; At t-gmax
//! 1,736 bytes in 3 blocks; At t-end 0 bytes in 0 blocks.

use std::alloc::{GlobalAlloc, Layout};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

// libc first, so the dynamic linker resolves `malloc` to glibc, not to libmimalloc's export.
#[link(name = "c")]
extern "C" {
    fn write(fd: i32, buf: *const u8, n: usize) -> isize;
}

#[link(name = "mimalloc")]
extern "C" {
    fn mi_malloc(size: usize) -> *mut u8;
    fn mi_zalloc(size: usize) -> *mut u8;
    fn mi_realloc(p: *mut u8, newsize: usize) -> *mut u8;
    fn mi_free(p: *mut u8);
    fn mi_malloc_aligned(size: usize, align: usize) -> *mut u8;
    fn mi_zalloc_aligned(size: usize, align: usize) -> *mut u8;
    fn mi_realloc_aligned(p: *mut u8, newsize: usize, align: usize) -> *mut u8;
}

/// mi_malloc guarantees this alignment (MI_MAX_ALIGN_SIZE); above it the _aligned forms are used.
const MI_MAX_ALIGN: usize = 16;

struct Counted;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static ZEROED: AtomicU64 = AtomicU64::new(0);
static REALLOCS: AtomicU64 = AtomicU64::new(0);
static DEALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE_BLOCKS: AtomicU64 = AtomicU64::new(0);
static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);

fn small(l: &Layout) -> bool {
    l.align() <= MI_MAX_ALIGN && l.align() <= l.size()
}

fn count_new(p: *mut u8, size: usize) -> *mut u8 {
    if !p.is_null() {
        BYTES.fetch_add(size as u64, Relaxed);
        LIVE_BLOCKS.fetch_add(1, Relaxed);
        LIVE_BYTES.fetch_add(size as u64, Relaxed);
    }
    p
}

unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        let p = if small(&l) { mi_malloc(l.size()) } else { mi_malloc_aligned(l.size(), l.align()) };
        count_new(p, l.size())
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        ZEROED.fetch_add(1, Relaxed);
        let p = if small(&l) { mi_zalloc(l.size()) } else { mi_zalloc_aligned(l.size(), l.align()) };
        count_new(p, l.size())
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        REALLOCS.fetch_add(1, Relaxed);
        let q = if small(&l) { mi_realloc(p, new_size) } else { mi_realloc_aligned(p, new_size, l.align()) };
        if !q.is_null() {
            LIVE_BLOCKS.fetch_sub(1, Relaxed);
            LIVE_BYTES.fetch_sub(l.size() as u64, Relaxed);
        }
        count_new(q, new_size)
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        DEALLOCS.fetch_add(1, Relaxed);
        LIVE_BLOCKS.fetch_sub(1, Relaxed);
        LIVE_BYTES.fetch_sub(l.size() as u64, Relaxed);
        mi_free(p);
    }
}

#[global_allocator]
static GLOBAL: Counted = Counted;

/// A fixed buffer that implements fmt::Write, so the report is formatted without allocating.
struct StackBuf {
    buf: [u8; 256],
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

/// The deterministic work: growing vectors, strings, a HashMap with a fixed-key hasher, a
/// zeroed buffer, an over-aligned block and one leak.
fn work() -> u64 {
    let mut v: Vec<u64> = Vec::new();
    for i in 0..1000 {
        v.push(i * 3);
    }
    let mut s = String::new();
    for i in 0..200 {
        s.push_str(&i.to_string());
    }
    let mut m: HashMap<String, Vec<u32>, BuildHasherDefault<DefaultHasher>> = HashMap::default();
    for i in 0..200u32 {
        m.entry(format!("key{}", i % 150)).or_default().push(i);
    }
    let zeros = vec![0u8; 10000];
    let aligned = Box::new(Aligned([7u8; 1000]));
    std::mem::forget(vec![1u8; 777]); // the leak
    v.iter().sum::<u64>() + s.len() as u64 + m.len() as u64 + zeros.len() as u64 + aligned.0[0] as u64
}

#[repr(align(64))]
struct Aligned([u8; 1000]);

fn main() {
    let r = work();
    let mut out = StackBuf { buf: [0; 256], len: 0 };
    let _ = writeln!(
        out,
        "rust_prefixed_alloc: allocs {} zeroed {} reallocs {} deallocs {} bytes {} live {}/{} (work {})",
        ALLOCS.load(Relaxed),
        ZEROED.load(Relaxed),
        REALLOCS.load(Relaxed),
        DEALLOCS.load(Relaxed),
        BYTES.load(Relaxed),
        LIVE_BLOCKS.load(Relaxed),
        LIVE_BYTES.load(Relaxed),
        r
    );
    // SAFETY: out.buf[..out.len] is initialised; fd 1 is stdout.
    unsafe { write(1, out.buf.as_ptr(), out.len) };
}
