//! Structure-aware mutation of byte strings: byte-level edits, splicing of
//! corpus entries, and insertion of the notation's own tokens (FEN fields,
//! reserve brackets, moves, EPD opcodes), huge numbers, long runs and
//! multi-byte UTF-8.

use crate::rng::Rng;

/// Numbers that sit on boundaries: board sizes, u8/u16/u32/u64 limits and past them.
pub const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "8",
    "9",
    "10",
    "11",
    "12",
    "16",
    "99",
    "100",
    "101",
    "127",
    "128",
    "255",
    "256",
    "257",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999",
    "-1",
    "+1",
    "00",
    "01",
    "010",
];

/// Multi-byte and odd Unicode: accents, chess symbols, astral plane,
/// combining marks, zero-width and byte-order marks, NUL, replacement char.
pub const UNICODE: &[&str] = &[
    "é",
    "ß",
    "♞",
    "♔",
    "♟",
    "𝄞",
    "😀",
    "\u{0301}",
    "\u{200b}",
    "\u{feff}",
    "\u{0}",
    "\u{fffd}",
    "Ａ",
    "ｅ",
    "\u{00a0}",
    "\u{2003}",
    "\u{85}",
    "١",
    "٢",
    "Ⅷ",
    "\u{10ffff}",
];

/// Bytes that are never valid UTF-8 on their own.
const BAD_UTF8: &[&[u8]] = &[b"\xff", b"\xc3", b"\xe2\x99", b"\xf0\x9d\x84", b"\x80", b"\xed\xa0\x80"];

/// Mutates byte strings; the dictionary holds the target's syntax tokens.
#[derive(Clone, Debug)]
pub struct Mutator {
    /// Tokens to insert (FEN pieces, moves, opcodes...).
    pub dictionary: Vec<Vec<u8>>,
    /// Largest input produced.
    pub max_len: usize,
}

impl Mutator {
    /// A mutator with the target's `dictionary` and a size cap.
    pub fn new(dictionary: &[&str], max_len: usize) -> Mutator {
        let mut dict: Vec<Vec<u8>> = dictionary.iter().map(|t| t.as_bytes().to_vec()).collect();
        dict.extend(NUMBERS.iter().map(|t| t.as_bytes().to_vec()));
        dict.extend(UNICODE.iter().map(|t| t.as_bytes().to_vec()));
        Mutator { dictionary: dict, max_len: max_len.max(16) }
    }

    /// Applies one to five stacked mutations to `data`; `others` are corpus
    /// entries to splice from.
    pub fn mutate(&self, data: &mut Vec<u8>, rng: &mut Rng, others: &[Vec<u8>]) {
        let n = 1 + rng.below(5);
        for _ in 0..n {
            self.mutate_once(data, rng, others);
        }
        if data.len() > self.max_len {
            data.truncate(self.max_len);
        }
    }

    fn token<'a>(&'a self, rng: &mut Rng) -> &'a [u8] {
        self.dictionary.get(rng.below(self.dictionary.len())).map_or(b"", |t| t.as_slice())
    }

    /// One mutation.
    pub fn mutate_once(&self, data: &mut Vec<u8>, rng: &mut Rng, others: &[Vec<u8>]) {
        let len = data.len();
        let pos = rng.below(len + 1);
        match rng.below(17) {
            // Flip a bit.
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            // Set a byte to an interesting or random value.
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = match rng.below(4) {
                    0 => *rng.pick(b" /\n;[]@?-0123456789").unwrap_or(&b' '),
                    1 => *rng.pick(b"KQRBNPASCHZWkqrbnpaschzw").unwrap_or(&b'K'),
                    2 => *rng.pick(&[0u8, 0x7f, 0x80, 0xff, b'\t', b'\r']).unwrap_or(&0),
                    _ => rng.next_u64() as u8,
                };
            }
            // Insert random bytes.
            2 => {
                let k = 1 + rng.below(8);
                let bytes: Vec<u8> = (0..k).map(|_| rng.next_u64() as u8).collect();
                data.splice(pos..pos, bytes);
            }
            // Delete a range.
            3 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(16.min(len - a))).min(len);
                data.drain(a..b);
            }
            // Copy a range elsewhere in the input.
            4 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(32.min(len - a))).min(len);
                let chunk = data[a..b].to_vec();
                data.splice(pos..pos, chunk);
            }
            // Splice: our prefix, another entry's suffix (or a chunk of it).
            5 => {
                if let Some(other) = rng.pick(others) {
                    let cut = rng.below(other.len() + 1);
                    if rng.one_in(2) {
                        data.truncate(pos);
                        data.extend_from_slice(&other[cut..]);
                    } else {
                        let end = (cut + 1 + rng.below(64)).min(other.len());
                        data.splice(pos..pos, other[cut..end].iter().copied());
                    }
                }
            }
            // Insert a dictionary token.
            6 | 7 => {
                let t = self.token(rng).to_vec();
                data.splice(pos..pos, t);
            }
            // Replace a range with a dictionary token.
            8 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(8.min(len - a))).min(len);
                let t = self.token(rng).to_vec();
                data.splice(a..b, t);
            }
            // Replace a run of digits (or insert) with a boundary number.
            9 => {
                let n = rng.pick(NUMBERS).map_or(&b"0"[..], |s| s.as_bytes()).to_vec();
                match find_run(data, rng, |b| b.is_ascii_digit()) {
                    Some((a, b)) => drop(data.splice(a..b, n)),
                    None => drop(data.splice(pos..pos, n)),
                }
            }
            // A long run: one token (or byte) repeated.
            10 => {
                let t = if rng.one_in(2) { self.token(rng).to_vec() } else { vec![rng.next_u64() as u8] };
                let room = self.max_len.saturating_sub(len);
                let span = 1 << rng.below(12);
                let reps = if t.is_empty() { 0 } else { (1 + rng.below(span)).min(room / t.len()) };
                let run: Vec<u8> = t.iter().copied().cycle().take(reps * t.len()).collect();
                data.splice(pos..pos, run);
            }
            // Multi-byte UTF-8, whole or broken.
            11 => {
                let bytes = if rng.one_in(4) {
                    rng.pick(BAD_UTF8).map_or(&b"\xff"[..], |b| *b).to_vec()
                } else {
                    rng.pick(UNICODE).map_or("é", |s| *s).as_bytes().to_vec()
                };
                data.splice(pos..pos, bytes);
            }
            // Line edits: delete, duplicate or swap lines.
            12 => line_edit(data, rng),
            // Field edits: swap two whitespace/'/'/';'-separated fields or replace one by a token.
            13 | 14 => {
                let t = self.token(rng).to_vec();
                field_edit(data, rng, &t)
            }
            // Flip the case of an ASCII letter (a piece changes colour).
            15 if len > 0 => {
                let i = rng.below(len);
                if data[i].is_ascii_alphabetic() {
                    data[i] ^= 0x20;
                }
            }
            // Truncate.
            16 if len > 0 => data.truncate(rng.below(len)),
            _ => {
                let t = self.token(rng).to_vec();
                data.splice(pos..pos, t);
            }
        }
    }
}

/// A random maximal run of bytes satisfying `f`.
fn find_run(data: &[u8], rng: &mut Rng, f: impl Fn(u8) -> bool) -> Option<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if f(data[i]) {
            let a = i;
            while i < data.len() && f(data[i]) {
                i += 1;
            }
            runs.push((a, i));
        } else {
            i += 1;
        }
    }
    rng.pick(&runs).copied()
}

/// Splits into pieces ending with (and including) a separator byte.
fn split_keep(data: &[u8], is_sep: impl Fn(u8) -> bool) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in data.iter().enumerate() {
        if is_sep(b) {
            out.push(&data[start..=i]);
            start = i + 1;
        }
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

fn line_edit(data: &mut Vec<u8>, rng: &mut Rng) {
    let mut lines: Vec<Vec<u8>> = split_keep(data, |b| b == b'\n').into_iter().map(<[u8]>::to_vec).collect();
    if lines.is_empty() {
        return;
    }
    let i = rng.below(lines.len());
    match rng.below(3) {
        0 if lines.len() > 1 => drop(lines.remove(i)),
        1 => {
            let mut l = lines[i].clone();
            if l.last() != Some(&b'\n') {
                l.push(b'\n');
            }
            lines.insert(i, l);
        }
        _ => {
            let j = rng.below(lines.len());
            lines.swap(i, j);
        }
    }
    *data = lines.concat();
}

fn field_edit(data: &mut Vec<u8>, rng: &mut Rng, token: &[u8]) {
    let seps: &[u8] = match rng.below(3) {
        0 => b" \n",
        1 => b"/",
        _ => b";",
    };
    let mut fields: Vec<Vec<u8>> = split_keep(data, |b| seps.contains(&b)).into_iter().map(<[u8]>::to_vec).collect();
    if fields.is_empty() {
        return;
    }
    let i = rng.below(fields.len());
    let strip = |f: &[u8]| -> (Vec<u8>, Option<u8>) {
        match f.last() {
            Some(&b) if seps.contains(&b) => (f[..f.len() - 1].to_vec(), Some(b)),
            _ => (f.to_vec(), None),
        }
    };
    if rng.one_in(2) {
        let j = rng.below(fields.len());
        let (a, sa) = strip(&fields[i]);
        let (b, sb) = strip(&fields[j]);
        fields[i] = b.into_iter().chain(sa).collect();
        fields[j] = a.into_iter().chain(sb).collect();
    } else {
        let (_, s) = strip(&fields[i]);
        fields[i] = token.iter().copied().chain(s).collect();
    }
    *data = fields.concat();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutation_respects_max_len_and_never_panics() {
        let m = Mutator::new(&["KQkq", "/", "[Aa?]"], 256);
        let mut rng = Rng::new(1);
        let others = vec![b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_vec(), Vec::new()];
        let mut data = others[0].clone();
        for _ in 0..100_000 {
            m.mutate(&mut data, &mut rng, &others);
            assert!(data.len() <= 256);
            if rng.one_in(50) {
                data = others[0].clone();
            }
        }
    }
}
