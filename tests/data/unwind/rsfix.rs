// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//! Rust fixture for the unwinder tests: rustc -O, no frame pointers. Nested functions that
//! allocate (Vec, String) stop on an int3 in the innermost one, where the ptrace parent
//! takes the registers and a copy of the stack. Runs the probe once, then exits 0.
/// An optimization barrier that works on every stable rustc (std::hint::black_box needs
/// 1.66; Debian 12 ships 1.63): a volatile read the compiler must assume observes x.
#[inline(never)]
fn black_box<T>(x: T) -> T {
    let r = unsafe { std::ptr::read_volatile(&x) };
    std::mem::forget(x);
    r
}

static mut PROBED: bool = false;

/// Innermost: allocates a String, then stops (once).
#[inline(never)]
fn rs_inner(n: usize) -> String {
    let mut s = String::with_capacity(n + 8);
    s.push_str("unwind");
    // SAFETY: single-threaded fixture; int3 only raises SIGTRAP for the tracer.
    unsafe {
        if !PROBED {
            PROBED = true;
            std::arch::asm!("int3");
        }
    }
    black_box(s)
}

/// Middle: a Vec of Strings.
#[inline(never)]
fn rs_middle(n: usize) -> Vec<String> {
    let mut v = Vec::with_capacity(2);
    for i in 0..2 {
        v.push(rs_inner(n + i));
    }
    black_box(v)
}

/// Outer: consumes the result so no call is a tail call.
#[inline(never)]
fn rs_outer(n: usize) -> usize {
    let v = rs_middle(n);
    v.iter().map(|s| s.len()).sum::<usize>() + n
}

fn main() {
    let n = black_box(std::env::args().count());
    let r = rs_outer(n);
    std::process::exit(if r == 12345 { 1 } else { 0 });
}
