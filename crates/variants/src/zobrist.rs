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

/// The fixed-seed stream of keys, drawn in a fixed order.
struct Stream(u64);

impl Stream {
    /// The next key.
    const fn next(&mut self) -> u64 {
        let (n, v) = splitmix(self.0);
        self.0 = n;
        v
    }

    /// Fills `keys` with the next keys, in order.
    const fn fill<const N: usize>(&mut self, keys: &mut [u64; N]) {
        let mut i = 0;
        while i < N {
            keys[i] = self.next();
            i += 1;
        }
    }
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
    let mut keys = Stream(0x4D65_6E61_6765_7269); // "Menageri"
    let mut c = 0;
    while c < 2 {
        let mut p = 0;
        while p < KIND_COUNT {
            keys.fill(&mut k.piece[c][p]);
            p += 1;
        }
        c += 1;
    }
    k.side = keys.next();
    // Castling keys combine four independent flag keys, so updates stay XORs.
    let mut flags = [0u64; 4];
    keys.fill(&mut flags);
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
    keys.fill(&mut k.ep);
    let mut c = 0;
    while c < 2 {
        keys.fill(&mut k.gate[c]);
        // No key for an empty reserve.
        let mut u = 1;
        while u < 4 {
            k.unplaced[c][u] = keys.next();
            u += 1;
        }
        c += 1;
    }
    k.pending = keys.next();
    let mut i = 0;
    while i < 4 {
        keys.fill(&mut k.castle_rook[i]);
        i += 1;
    }
    k
}

/// The keys.
pub static KEYS: Keys = build();

#[cfg(test)]
mod tests {
    use super::KEYS;

    /// A fingerprint of every key, field by field: the keys never change
    /// (positions' hashes, transposition tables and the tests' recorded
    /// keys depend on them).
    #[test]
    fn the_keys_are_fixed() {
        let k = &KEYS;
        let mut all: Vec<u64> = k.piece.iter().flatten().flatten().copied().collect();
        all.push(k.side);
        all.extend(k.castling);
        all.extend(k.ep);
        all.extend(k.gate.iter().flatten());
        all.extend(k.unplaced.iter().flatten());
        all.push(k.pending);
        all.extend(k.castle_rook.iter().flatten());
        let fingerprint = all.iter().fold(0u64, |h, &key| h.rotate_left(7) ^ key);
        assert_eq!((all.len(), fingerprint), (2488, 0xd155_7ae0_5009_7e60));
    }
}
