//! Magic-bitboard slider attacks for the 8x8 board.
//!
//! Magic multipliers are searched for at start-up from a fixed seed (a few
//! milliseconds), so the tables are deterministic and need no generated code.

use crate::square::{DIRECTIONS, Delta};

/// One square's magic lookup parameters.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Magic {
    pub mask: u64,
    pub magic: u64,
    pub shift: u32,
    pub offset: u32,
}

/// Rook and bishop magic tables for 8x8.
pub(crate) struct MagicTables {
    pub rook: [Magic; 64],
    pub bishop: [Magic; 64],
    pub table: Box<[u64]>,
}

impl MagicTables {
    #[inline(always)]
    pub fn rook(&self, sq: u8, occ: u64) -> u64 {
        let m = &self.rook[sq as usize];
        let i = ((occ & m.mask).wrapping_mul(m.magic) >> m.shift) as usize + m.offset as usize;
        // SAFETY: every index produced by a verified magic lies inside the
        // square's slice of the table, which `build` allocated.
        unsafe { *self.table.get_unchecked(i) }
    }

    #[inline(always)]
    pub fn bishop(&self, sq: u8, occ: u64) -> u64 {
        let m = &self.bishop[sq as usize];
        let i = ((occ & m.mask).wrapping_mul(m.magic) >> m.shift) as usize + m.offset as usize;
        // SAFETY: as in `rook`.
        unsafe { *self.table.get_unchecked(i) }
    }

    pub fn build() -> MagicTables {
        let mut table = Vec::new();
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let rook_dirs = [DIRECTIONS[0], DIRECTIONS[2], DIRECTIONS[4], DIRECTIONS[6]];
        let bishop_dirs = [DIRECTIONS[1], DIRECTIONS[3], DIRECTIONS[5], DIRECTIONS[7]];
        let mut rook = [Magic::default(); 64];
        let mut bishop = [Magic::default(); 64];
        for sq in 0..64u8 {
            rook[sq as usize] = find_magic(sq, &rook_dirs, &mut table, &mut rng);
            bishop[sq as usize] = find_magic(sq, &bishop_dirs, &mut table, &mut rng);
        }
        MagicTables { rook, bishop, table: table.into_boxed_slice() }
    }
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

/// Slow reference slider attacks on 8x8: walk each ray until a blocker.
pub(crate) fn slow_slider(sq: u8, dirs: &[Delta], occ: u64) -> u64 {
    let (f0, r0) = ((sq % 8) as i8, (sq / 8) as i8);
    let mut out = 0u64;
    for d in dirs {
        let (mut f, mut r) = (f0 + d.df, r0 + d.dr);
        while (0..8).contains(&f) && (0..8).contains(&r) {
            let s = (r * 8 + f) as u32;
            out |= 1 << s;
            if occ & (1 << s) != 0 {
                break;
            }
            f += d.df;
            r += d.dr;
        }
    }
    out
}

fn relevant_mask(sq: u8, dirs: &[Delta]) -> u64 {
    let (f0, r0) = ((sq % 8) as i8, (sq / 8) as i8);
    let mut out = 0u64;
    for d in dirs {
        let (mut f, mut r) = (f0 + d.df, r0 + d.dr);
        // A square matters only if the ray continues past it.
        while (0..8).contains(&(f + d.df)) && (0..8).contains(&(r + d.dr)) {
            out |= 1 << (r * 8 + f);
            f += d.df;
            r += d.dr;
        }
    }
    out
}

fn find_magic(sq: u8, dirs: &[Delta], table: &mut Vec<u64>, rng: &mut XorShift) -> Magic {
    let mask = relevant_mask(sq, dirs);
    let bits = mask.count_ones();
    let shift = 64 - bits;
    let size = 1usize << bits;
    let mut occs = Vec::with_capacity(size);
    let mut refs = Vec::with_capacity(size);
    let mut sub = 0u64;
    loop {
        occs.push(sub);
        refs.push(slow_slider(sq, dirs, sub));
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            break;
        }
    }
    let mut used = vec![0u64; size];
    let mut epoch = vec![0u32; size];
    let mut attempt = 0u32;
    loop {
        let magic = rng.sparse();
        if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        attempt += 1;
        let mut ok = true;
        for (o, r) in occs.iter().zip(&refs) {
            let i = (o.wrapping_mul(magic) >> shift) as usize;
            if epoch[i] != attempt {
                epoch[i] = attempt;
                used[i] = *r;
            } else if used[i] != *r {
                ok = false;
                break;
            }
        }
        if ok {
            let offset = table.len() as u32;
            table.resize(table.len() + size, 0);
            for (i, &u) in used.iter().enumerate() {
                if epoch[i] == attempt {
                    table[offset as usize + i] = u;
                }
            }
            return Magic { mask, magic, shift, offset };
        }
    }
}
