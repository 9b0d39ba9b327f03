// Four allocation sites in one function, on one line as in issue 17, each through a different
// layer of std: a HashMap that grows (hashbrown's RawTable), a Vec collected from an iterator
// (RawVec), format! (alloc::fmt) and a String clone. Their frames in build() all say line 12,
// so `tracer report` must tell the rows apart by the std frame each one called.
use std::collections::HashMap;
use std::hint::black_box;

#[inline(never)]
#[rustfmt::skip]
fn build(n: usize) -> usize {
    let mut map = HashMap::new();
    for i in 0..n { map.insert(i, i); } let v: Vec<usize> = (0..n * 4).collect(); let s = format!("{}-{}", n, v.len()); let c = s.clone();
    black_box(&map).len() + black_box(&v).len() + black_box(&s).len() + black_box(&c).len()
}

fn main() {
    // the count comes from the command line, so that the loop is not unrolled into many
    // call sites of build()
    let reps = 20 + std::env::args().count();
    let mut total = 0;
    for i in 0..reps {
        total += build(100 + i);
    }
    println!("{}", total);
}
