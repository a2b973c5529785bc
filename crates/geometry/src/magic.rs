//! Magic-bitboard slider attacks for the 8x8 board.
//!
//! The multipliers below were found by [`search_magics`] from a fixed seed
//! (`cargo run --release -p menagerie-geometry --example magics` prints them
//! again); the tables are built from them at first use in about a millisecond.

use crate::square::{DIRECTIONS, Delta};

/// Rook magic multipliers, a1..h8.
const ROOK_MAGICS: [u64; 64] = [
    0x2080002080400010,
    0x00C0002001401000,
    0x2100110008402002,
    0x0880080081041000,
    0x0200020020041008,
    0x2300040008010012,
    0x0C00283004008201,
    0x0180010000407A80,
    0x0168800080400020,
    0x0010400040201000,
    0x1001002001001048,
    0x1001002408100100,
    0x0801000408010012,
    0x4001000209000400,
    0x08A20004C8020001,
    0x2002801145002280,
    0x0080860021004200,
    0x001000C009402002,
    0x00B0002004002800,
    0x100A808010020800,
    0x9400808004000800,
    0x0090808004000200,
    0x0000040010810208,
    0x2000020000448534,
    0x4104400480008033,
    0x0000810100204000,
    0x0440430900200010,
    0x4600240900100100,
    0x0804080100110004,
    0x0001000300080400,
    0x0004084400011002,
    0x0023040200008041,
    0x0580050043002080,
    0x0400804002802008,
    0x0001002001004010,
    0x0080200A02001040,
    0x600D480280802400,
    0x400B800201800C00,
    0x2408211004004208,
    0x0200211082000844,
    0x0020804010208000,
    0x5030004020104000,
    0xA042084080220010,
    0x4088080010008080,
    0x5002080100110004,
    0x2012002010040400,
    0x0040318210440008,
    0x0120941040820001,
    0x1000800100402100,
    0x0040002010004840,
    0x8108450020001900,
    0x0200204008120200,
    0x0080800C00180180,
    0x0885000400420900,
    0x230802011008C400,
    0x3801740891432200,
    0x0A00250212024082,
    0x0000882040001105,
    0x0042102082000A42,
    0xC401210810000501,
    0x0241001002480005,
    0x0081000400880241,
    0x0000009008024124,
    0x0048122980410402,
];

/// Bishop magic multipliers, a1..h8.
const BISHOP_MAGICS: [u64; 64] = [
    0x1862221006220044,
    0x2104A14202020060,
    0x2804081220444001,
    0x2102408900010001,
    0x0002021000040002,
    0x08C3100805004300,
    0x1084040124920050,
    0x8900440043382010,
    0x2401410802140040,
    0x0901200454208020,
    0x0000090216020541,
    0x1283844040800804,
    0x0521840420000803,
    0x0800010402400C40,
    0x0000408E10100404,
    0x0009810048420800,
    0x2004211004286808,
    0x13080A1001380080,
    0x0008801004220020,
    0x0024000802480800,
    0x1461001190400401,
    0x0020400200500440,
    0x0003000409019000,
    0x000C20820D011802,
    0x000804002164100C,
    0x00048400A0011404,
    0x5018110308044100,
    0x0048A00804010020,
    0x0007840000802000,
    0x8808A20075004220,
    0x8014040000822100,
    0x110C03000E251101,
    0x0081094820202010,
    0x0008041000044100,
    0x00C1202808940800,
    0x8108100821040400,
    0x1240010010010041,
    0x0810004080011000,
    0x00A20C0401804A00,
    0x40014C0020050500,
    0x5805082012042480,
    0x2004022144031000,
    0x2082002024204808,
    0x0800004200800800,
    0x0410020204100A02,
    0x80C1204080804101,
    0x0010104E01800042,
    0x000800810C400208,
    0x100080B008201210,
    0x8000440605112101,
    0x000202008C440040,
    0x9004002210442200,
    0x2032014088222045,
    0x0C00202222C20000,
    0x0140040820A50100,
    0x0222104C29024018,
    0x0200110121202004,
    0x0800104200B00802,
    0x0000401424020801,
    0x4000000004208840,
    0x0802E00040104100,
    0x03000020A0424080,
    0x0011C00408188121,
    0x0848020822040013,
];

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

    /// Builds the tables from the embedded multipliers.
    pub fn build() -> MagicTables {
        let mut table = Vec::new();
        let mut rook = [Magic::default(); 64];
        let mut bishop = [Magic::default(); 64];
        for sq in 0..64u8 {
            rook[sq as usize] = fill(sq, &ROOK_DIRS, ROOK_MAGICS[sq as usize], &mut table);
            bishop[sq as usize] = fill(sq, &BISHOP_DIRS, BISHOP_MAGICS[sq as usize], &mut table);
        }
        MagicTables { rook, bishop, table: table.into_boxed_slice() }
    }
}

const ROOK_DIRS: [Delta; 4] = [DIRECTIONS[0], DIRECTIONS[2], DIRECTIONS[4], DIRECTIONS[6]];
const BISHOP_DIRS: [Delta; 4] = [DIRECTIONS[1], DIRECTIONS[3], DIRECTIONS[5], DIRECTIONS[7]];

/// Appends one square's attack table for a known-good multiplier.
fn fill(sq: u8, dirs: &[Delta], magic: u64, table: &mut Vec<u64>) -> Magic {
    let mask = relevant_mask(sq, dirs);
    let bits = mask.count_ones();
    let shift = 64 - bits;
    let offset = table.len() as u32;
    table.resize(table.len() + (1 << bits), 0);
    let mut sub = 0u64;
    loop {
        let i = (sub.wrapping_mul(magic) >> shift) as usize;
        table[offset as usize + i] = slow_slider(sq, dirs, sub);
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            break;
        }
    }
    Magic { mask, magic, shift, offset }
}

/// Searches rook and bishop magic multipliers from a fixed seed (slow: it
/// produced the embedded constants).
pub fn search_magics() -> ([u64; 64], [u64; 64]) {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut scratch = Vec::new();
    let mut rook = [0; 64];
    let mut bishop = [0; 64];
    for sq in 0..64u8 {
        rook[sq as usize] = find_magic(sq, &ROOK_DIRS, &mut scratch, &mut rng).magic;
        bishop[sq as usize] = find_magic(sq, &BISHOP_DIRS, &mut scratch, &mut rng).magic;
    }
    (rook, bishop)
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
