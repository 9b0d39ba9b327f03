// SPDX-License-Identifier: MIT
//! rs_allocs - Rust allocations through nested functions, for `tracer --unwind dwarf`.
//! Built with plain `rustc -O` (no frame pointers, no crates): a Vec grown in
//! rs_fill_vec and a String built in rs_make_string, both called through rs_outer and
//! rs_middle from main. Exit status 0.
/// An optimization barrier that works on every stable rustc (std::hint::black_box needs
/// 1.66; Debian 12 ships 1.63): a volatile read the compiler must assume observes x.
#[inline(never)]
fn black_box<T>(x: T) -> T {
    let r = unsafe { std::ptr::read_volatile(&x) };
    std::mem::forget(x);
    r
}

/// A Vec<u64> pushed past its capacity: the allocation and its reallocs.
#[inline(never)]
fn rs_fill_vec(n: usize) -> Vec<u64> {
    let mut v = Vec::new();
    for i in 0..n {
        v.push(black_box(i as u64));
    }
    v
}

/// A String grown by formatting into it.
#[inline(never)]
fn rs_make_string(n: usize) -> String {
    let mut s = String::with_capacity(4);
    for i in 0..n {
        s.push_str(black_box("piece-"));
        s.push(char::from(b'a' + (i % 26) as u8));
    }
    s
}

#[inline(never)]
fn rs_middle(n: usize) -> usize {
    let v = rs_fill_vec(n);
    let s = rs_make_string(n);
    black_box(v.len() + s.len())
}

#[inline(never)]
fn rs_outer(n: usize) -> usize {
    let r = rs_middle(n);
    black_box(r + 1)
}

fn main() {
    let n = black_box(std::env::args().count() * 40);
    let r = rs_outer(n);
    std::process::exit(if r == 12345 { 1 } else { 0 });
}
