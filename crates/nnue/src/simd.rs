//! The accumulator's vector kernels: i16 add/subtract of a weight row and
//! the output layer's clipped dot product. Each has a portable version
//! written in 16-lane chunks so the compiler vectorises it, and an AVX2
//! build of the same code chosen at run time when the CPU has AVX2.

use crate::QA;

/// Lanes per chunk (one AVX2 register of i16).
pub const LANES: usize = 16;

#[inline(always)]
fn add_portable(acc: &mut [i16], row: &[i16]) {
    for (a, r) in acc.chunks_exact_mut(LANES).zip(row.chunks_exact(LANES)) {
        for i in 0..LANES {
            a[i] = a[i].wrapping_add(r[i]);
        }
    }
}

#[inline(always)]
fn sub_portable(acc: &mut [i16], row: &[i16]) {
    for (a, r) in acc.chunks_exact_mut(LANES).zip(row.chunks_exact(LANES)) {
        for i in 0..LANES {
            a[i] = a[i].wrapping_sub(r[i]);
        }
    }
}

#[inline(always)]
fn dot_portable(acc: &[i16], w: &[i16]) -> i64 {
    let mut lanes = [0i32; LANES];
    for (a, r) in acc.chunks_exact(LANES).zip(w.chunks_exact(LANES)) {
        for i in 0..LANES {
            lanes[i] = lanes[i].wrapping_add(i32::from(a[i].clamp(0, QA as i16)) * i32::from(r[i]));
        }
    }
    lanes.iter().map(|&l| i64::from(l)).sum()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    #[target_feature(enable = "avx2")]
    pub(super) fn add(acc: &mut [i16], row: &[i16]) {
        super::add_portable(acc, row)
    }
    #[target_feature(enable = "avx2")]
    pub(super) fn sub(acc: &mut [i16], row: &[i16]) {
        super::sub_portable(acc, row)
    }
    #[target_feature(enable = "avx2")]
    pub(super) fn dot(acc: &[i16], w: &[i16]) -> i64 {
        super::dot_portable(acc, w)
    }
}

/// Which kernel set runs: the portable code, or its AVX2 build, which only
/// [`Kernels::detect`] can choose (on a CPU with AVX2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Kernels {
    avx2: bool,
}

/// Runs the AVX2 kernel call `avx2` when `kernels` is the AVX2 build, else
/// the portable call.
macro_rules! dispatch {
    ($kernels:expr, $avx2:expr, $portable:expr) => {{
        #[cfg(target_arch = "x86_64")]
        if $kernels.avx2 {
            // SAFETY: `avx2` is only set by `Kernels::detect`, on a CPU with AVX2.
            return unsafe { $avx2 };
        }
        $portable
    }};
}

impl Kernels {
    /// The best kernels this CPU runs.
    pub fn detect() -> Kernels {
        #[cfg(target_arch = "x86_64")]
        {
            static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
            if *AVX2.get_or_init(|| std::is_x86_feature_detected!("avx2")) {
                return Kernels { avx2: true };
            }
        }
        Kernels::portable()
    }

    /// The portable code (whatever the target's baseline vectorises to).
    pub const fn portable() -> Kernels {
        Kernels { avx2: false }
    }

    /// True for the AVX2 build.
    pub const fn is_avx2(self) -> bool {
        self.avx2
    }

    /// Adds `row` to `acc` lane by lane (wrapping), over whole 16-lane chunks.
    #[inline]
    pub fn add(self, acc: &mut [i16], row: &[i16]) {
        dispatch!(self, avx2::add(acc, row), add_portable(acc, row))
    }

    /// Subtracts `row` from `acc` lane by lane (wrapping).
    #[inline]
    pub fn sub(self, acc: &mut [i16], row: &[i16]) {
        dispatch!(self, avx2::sub(acc, row), sub_portable(acc, row))
    }

    /// `sum clamp(acc[i], 0, QA) * w[i]`.
    #[inline]
    pub fn dot(self, acc: &[i16], w: &[i16]) -> i64 {
        dispatch!(self, avx2::dot(acc, w), dot_portable(acc, w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_agree() {
        let mut seed = 0x1234_5678_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as i16
        };
        for n in [16usize, 128, 256] {
            let acc: Vec<i16> = (0..n).map(|_| next() % 400).collect();
            let row: Vec<i16> = (0..n).map(|_| next()).collect();
            let best = Kernels::detect();
            let (mut a, mut b) = (acc.clone(), acc.clone());
            best.add(&mut a, &row);
            Kernels::portable().add(&mut b, &row);
            assert_eq!(a, b);
            best.sub(&mut a, &row);
            Kernels::portable().sub(&mut b, &row);
            assert_eq!(a, acc);
            assert_eq!(b, acc);
            assert_eq!(best.dot(&acc, &row), Kernels::portable().dot(&acc, &row));
            let scalar: i64 = acc.iter().zip(&row).map(|(&a, &w)| i64::from(a.clamp(0, 255)) * i64::from(w)).sum();
            assert_eq!(Kernels::portable().dot(&acc, &row), scalar);
        }
    }
}
