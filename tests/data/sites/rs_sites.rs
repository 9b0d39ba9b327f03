// Four allocation sites in one function, each through a different layer of std: a HashMap
// that grows (hashbrown's RawTable), a Vec collected from an iterator (RawVec), format!
// (alloc::fmt) and a String clone. `tracer report` must tell the four rows apart.
use std::collections::HashMap;
use std::hint::black_box;

#[inline(never)]
fn build(n: usize) -> usize {
    let mut map = HashMap::new();
    for i in 0..n {
        map.insert(i, i);
    }
    let v: Vec<usize> = (0..n * 4).collect();
    let s = format!("{}-{}", n, v.len());
    let c = s.clone();
    black_box(&map).len() + black_box(&v).len() + black_box(&s).len() + black_box(&c).len()
}

fn main() {
    let mut total = 0;
    for i in 0..50 {
        total += build(100 + i);
    }
    println!("{}", total);
}
