//! Zobrist keys, generated at compile time from a fixed seed.

use menagerie_pieces::KIND_COUNT;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// All Zobrist keys.
pub struct Keys {
    /// `[color][kind][square]`.
    pub piece: [[[u64; 100]; KIND_COUNT]; 2],
    /// Black to move.
    pub side: u64,
    /// Per castling-rights value.
    pub castling: [u64; 16],
    /// Per en passant file.
    pub ep: [u64; 10],
    /// `[color][file]`: a live gate.
    pub gate: [[u64; 10]; 2],
    /// `[color][count]`: reserve pieces still in hand.
    pub unplaced: [[u64; 4]; 2],
    /// The prelude decision is pending.
    pub pending: u64,
    /// `[right][file]`: the castling rook's file of a Chess960 right.
    pub castle_rook: [[u64; 8]; 4],
}

const fn build() -> Keys {
    let mut k = Keys {
        piece: [[[0; 100]; KIND_COUNT]; 2],
        side: 0,
        castling: [0; 16],
        ep: [0; 10],
        gate: [[0; 10]; 2],
        unplaced: [[0; 4]; 2],
        pending: 0,
        castle_rook: [[0; 8]; 4],
    };
    let mut st = 0x4D65_6E61_6765_7269u64; // "Menageri"
    let mut c = 0;
    while c < 2 {
        let mut p = 0;
        while p < KIND_COUNT {
            let mut s = 0;
            while s < 100 {
                let (n, v) = splitmix(st);
                st = n;
                k.piece[c][p][s] = v;
                s += 1;
            }
            p += 1;
        }
        c += 1;
    }
    let (n, v) = splitmix(st);
    st = n;
    k.side = v;
    // Castling keys combine four independent flag keys, so updates stay XORs.
    let mut flags = [0u64; 4];
    let mut i = 0;
    while i < 4 {
        let (n, v) = splitmix(st);
        st = n;
        flags[i] = v;
        i += 1;
    }
    let mut r = 0;
    while r < 16 {
        let mut acc = 0;
        let mut b = 0;
        while b < 4 {
            if r & (1 << b) != 0 {
                acc ^= flags[b];
            }
            b += 1;
        }
        k.castling[r] = acc;
        r += 1;
    }
    let mut f = 0;
    while f < 10 {
        let (n, v) = splitmix(st);
        st = n;
        k.ep[f] = v;
        f += 1;
    }
    let mut c = 0;
    while c < 2 {
        let mut f = 0;
        while f < 10 {
            let (n, v) = splitmix(st);
            st = n;
            k.gate[c][f] = v;
            f += 1;
        }
        let mut u = 1;
        while u < 4 {
            let (n, v) = splitmix(st);
            st = n;
            k.unplaced[c][u] = v;
            u += 1;
        }
        c += 1;
    }
    let (n, v) = splitmix(st);
    st = n;
    k.pending = v;
    let mut i = 0;
    while i < 4 {
        let mut f = 0;
        while f < 8 {
            let (n, v) = splitmix(st);
            st = n;
            k.castle_rook[i][f] = v;
            f += 1;
        }
        i += 1;
    }
    k
}

/// The keys.
pub static KEYS: Keys = build();
