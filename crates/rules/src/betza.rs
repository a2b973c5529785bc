//! Betza notation for piece movement, in the dialect Fairy-Stockfish accepts
//! for custom pieces.
//!
//! A Betza string is a sequence of atoms (`W F D N A H C L Z J G K`, riders
//! `R B Q`), each optionally preceded by modifiers: `m` (move only), `c`
//! (capture only), directions (`f b l r v s h`, single or in pairs such as
//! `ff`, `fs`, `lf`, `rv`), `p` (cannon-style hopper), `g` (grasshopper) and
//! `n` (lame leaper, blocked by the passed square), `i` (a quiet move the
//! piece may make only from its initial region, as Fairy-Stockfish's
//! double-step region) and `e` (the piece captures en passant: the
//! modifier itself changes no atom, see [`en_passant`]). An atom followed by itself
//! (`NN`) or by a digit (`R4`) is a rider, the digit limiting its range.
//!
//! Directions are interpreted the way Fairy-Stockfish interprets them, which
//! for oblique atoms distinguishes e.g. `fr` (forward, wide to the right) from
//! `rf` (narrow, forward to the right).
//!
//! As in Fairy-Stockfish, a later atom replaces an earlier one of the same
//! kind (step, slider or hopper), modality and direction (`NfnN` makes the
//! forward knight moves lame), and `n` has no effect on riders. The parsed
//! atoms describe the notation; how a piece then moves follows
//! Fairy-Stockfish's engine, where riders only slide along rook, bishop or
//! knight lines, hoppers along rook or bishop lines and lame leapers only as
//! `nD`, `nN`, `nA` or `nZ` (see [`crate::Position`]). As in
//! Fairy-Stockfish, initial captures are dropped (an `i` atom only moves).
//! Multi-leg modifiers are rejected.

use thiserror::Error;

/// How an atom moves along its direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reach {
    /// A single jump to the target, whatever lies between.
    Leap,
    /// A single jump that is blocked if a square passed on the way is occupied
    /// (e.g. the xiangqi horse `nN`).
    Lame,
    /// Repeated steps until the first occupied square; `limit` is the maximum
    /// number of steps (0 = unlimited).
    Ride {
        /// Maximum number of steps, 0 for unlimited.
        limit: u8,
    },
    /// Slides to a first occupied square (the screen) and jumps over it.
    /// With `limit == 1` it lands right behind the screen (grasshopper);
    /// otherwise it may land on any square behind the screen up to the next
    /// occupied one (cannon), at most `limit` steps from the start (0 =
    /// unlimited).
    Hop {
        /// 1 for a grasshopper, otherwise the maximum total distance (0 = unlimited).
        limit: u8,
    },
}

/// One direction of movement of a piece, as seen by White (Black's moves are
/// rotated by 180 degrees).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveAtom {
    /// File offset of one step (positive towards the h-file).
    pub dx: i8,
    /// Rank offset of one step (positive towards Black).
    pub dy: i8,
    /// Leaper, lame leaper, rider or hopper.
    pub reach: Reach,
    /// The move may go to an empty square.
    pub quiet: bool,
    /// The move may capture an enemy piece.
    pub capture: bool,
    /// The move is allowed only from the piece's initial region (`i`);
    /// such atoms are quiet moves only.
    pub initial: bool,
}

impl MoveAtom {
    /// Squares passed on the way to the target of a lame leap, as offsets from
    /// the origin (empty for other reaches). Each step moves along the larger
    /// of the remaining offsets, or diagonally when they are equal.
    pub fn lame_path(&self) -> Vec<(i8, i8)> {
        let mut path = Vec::new();
        if self.reach != Reach::Lame {
            return path;
        }
        let (mut x, mut y) = (0i8, 0i8);
        while (x, y) != (self.dx, self.dy) {
            let diff = (self.dx - x).abs() - (self.dy - y).abs();
            if diff >= 0 {
                x += (self.dx - x).signum();
            }
            if diff <= 0 {
                y += (self.dy - y).signum();
            }
            if (x, y) != (self.dx, self.dy) {
                path.push((x, y));
            }
        }
        path
    }
}

/// Why a Betza string was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BetzaError {
    /// A character that is neither an atom nor a supported modifier.
    #[error("invalid character '{ch}' at position {pos} in Betza string \"{betza}\"")]
    InvalidChar {
        /// The whole string.
        betza: String,
        /// The offending character.
        ch: char,
        /// Its byte position.
        pos: usize,
    },
    /// A modifier Fairy-Stockfish knows but this crate does not support.
    #[error("unsupported modifier '{ch}' at position {pos} in Betza string \"{betza}\"")]
    Unsupported {
        /// The whole string.
        betza: String,
        /// The offending character.
        ch: char,
        /// Its byte position.
        pos: usize,
    },
    /// Modifiers at the end of the string with no atom to apply to.
    #[error("modifiers without an atom at the end of Betza string \"{betza}\"")]
    DanglingModifiers {
        /// The whole string.
        betza: String,
    },
    /// A range digit that does not follow an atom.
    #[error("range digit at position {pos} does not follow an atom in Betza string \"{betza}\"")]
    MisplacedDigit {
        /// The whole string.
        betza: String,
        /// Its byte position.
        pos: usize,
    },
}

const VERTICALS: &str = "fbvh";
const HORIZONTALS: &str = "rlsh";

fn leaper_atoms(c: char) -> Option<&'static [(i8, i8)]> {
    // (a, b): a = the long (forward) component, b = the short (sideways) one.
    Some(match c {
        'W' => &[(1, 0)],
        'F' => &[(1, 1)],
        'D' => &[(2, 0)],
        'N' => &[(2, 1)],
        'A' => &[(2, 2)],
        'H' => &[(3, 0)],
        'L' | 'C' => &[(3, 1)],
        'J' | 'Z' => &[(3, 2)],
        'G' => &[(3, 3)],
        'K' => &[(1, 0), (1, 1)],
        _ => return None,
    })
}

fn rider_atoms(c: char) -> Option<&'static [(i8, i8)]> {
    Some(match c {
        'R' => &[(1, 0)],
        'B' => &[(1, 1)],
        'Q' => &[(1, 0), (1, 1)],
        _ => return None,
    })
}

/// The eight orientations of an atom `(a, b)` as `(dx, dy)`, each with the
/// direction pairs that select it.
fn orientations(a: i8, b: i8) -> [((i8, i8), &'static [&'static str]); 8] {
    [
        ((b, a), &["ff", "vv", "rf", "rv", "fh", "rh", "hr"]),
        ((-b, -a), &["bb", "vv", "lb", "lv", "bh", "lh", "hr"]),
        ((a, -b), &["rr", "ss", "br", "bs", "bh", "rh", "hr"]),
        ((-a, b), &["ll", "ss", "fl", "fs", "fh", "lh", "hr"]),
        ((a, b), &["rr", "ss", "fr", "fs", "fh", "rh", "hl"]),
        ((-a, -b), &["ll", "ss", "bl", "bs", "bh", "lh", "hl"]),
        ((b, -a), &["bb", "vv", "rb", "rv", "bh", "rh", "hl"]),
        ((-b, a), &["ff", "vv", "lf", "lv", "fh", "lh", "hl"]),
    ]
}

/// Parses a Betza string into the list of its move atoms (duplicates merged).
///
/// ```
/// use menagerie_rules::betza::{parse, Reach};
/// let knight = parse("N").unwrap();
/// assert_eq!(knight.len(), 8);
/// let cannon = parse("mRcpR").unwrap();
/// assert!(cannon.iter().any(|a| a.reach == Reach::Hop { limit: 0 } && a.capture && !a.quiet));
/// ```
pub fn parse(betza: &str) -> Result<Vec<MoveAtom>, BetzaError> {
    let chars: Vec<char> = betza.chars().collect();
    // (kind, modality, dx, dy, reach, initial)
    let mut slots: Vec<(u8, u8, i8, i8, Reach, bool)> = Vec::new();
    let mut quiet = false;
    let mut capture = false;
    let mut hopper = false;
    let mut grasshopper = false;
    let mut lame = false;
    let mut initial = false;
    let mut dirs: Vec<String> = Vec::new();
    let mut pending = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == 'm' || c == 'c' {
            if c == 'm' {
                quiet = true;
            } else {
                capture = true;
            }
            pending = true;
        } else if c == 'p' || c == 'g' {
            hopper = true;
            grasshopper |= c == 'g';
            pending = true;
        } else if c == 'n' {
            lame = true;
            pending = true;
        } else if c == 'i' {
            initial = true;
            pending = true;
        } else if c == 'e' {
            // En passant: Fairy-Stockfish's parser skips it (see `en_passant`).
        } else if VERTICALS.contains(c) || HORIZONTALS.contains(c) {
            pending = true;
            if let Some(&c2) = chars.get(i + 1) {
                let combinable = c2 == c
                    || (VERTICALS.contains(c) && HORIZONTALS.contains(c2))
                    || (HORIZONTALS.contains(c) && VERTICALS.contains(c2));
                if combinable {
                    dirs.push([c, c2].iter().collect());
                    i += 2;
                    continue;
                }
            }
            dirs.push([c, c].iter().collect());
        } else if let Some(atoms) = rider_atoms(c).or_else(|| leaper_atoms(c)) {
            let mut rider = rider_atoms(c).is_some();
            let mut limit: u8 = if grasshopper { 1 } else { 0 };
            if let Some(&next) = chars.get(i + 1) {
                if let Some(d) = next.to_digit(10) {
                    rider = true;
                    limit = d as u8;
                    i += 1;
                } else if next == c {
                    rider = true;
                    i += 1;
                }
            }
            let (q, k) = if !quiet && !capture { (true, true) } else { (quiet, capture) };
            let reach = if hopper {
                Reach::Hop { limit }
            } else if rider {
                Reach::Ride { limit }
            } else if lame {
                Reach::Lame
            } else {
                Reach::Leap
            };
            for &(a, b) in atoms {
                // Mixed direction pairs of an orthogonal atom are split
                // (`fsW` = forward and sideways).
                let mut ds: Vec<String> = Vec::new();
                for s in &dirs {
                    let s0: Vec<char> = s.chars().collect();
                    if atoms.len() == 1 && b == 0 && s0[0] != s0[1] {
                        ds.push([s0[0], s0[0]].iter().collect());
                        ds.push([s0[1], s0[1]].iter().collect());
                    } else {
                        ds.push(s.clone());
                    }
                }
                for ((dx, dy), keys) in orientations(a, b) {
                    if ds.is_empty() || keys.iter().any(|k| ds.iter().any(|d| d == k)) {
                        // Like Fairy-Stockfish, one entry per kind (step,
                        // slider, hopper), modality and direction: the last wins.
                        let class = match reach {
                            Reach::Leap | Reach::Lame => 0,
                            Reach::Ride { .. } => 1,
                            Reach::Hop { .. } => 2,
                        };
                        // Initial captures are not supported, as in Fairy-Stockfish.
                        for (modality, on) in [(0u8, q), (1u8, k && !initial)] {
                            if !on {
                                continue;
                            }
                            let key = (class, modality, dx, dy, initial);
                            match slots.iter_mut().find(|e| (e.0, e.1, e.2, e.3, e.5) == key) {
                                Some(e) => e.4 = reach,
                                None => slots.push((class, modality, dx, dy, reach, initial)),
                            }
                        }
                    }
                }
            }
            quiet = false;
            capture = false;
            hopper = false;
            grasshopper = false;
            lame = false;
            initial = false;
            dirs.clear();
            pending = false;
        } else if c.is_ascii_digit() {
            return Err(BetzaError::MisplacedDigit { betza: betza.to_string(), pos: i });
        } else if c == 'j' || c == 'o' || c == 'a' || c == 'x' || c == 'y' {
            return Err(BetzaError::Unsupported { betza: betza.to_string(), ch: c, pos: i });
        } else {
            return Err(BetzaError::InvalidChar { betza: betza.to_string(), ch: c, pos: i });
        }
        i += 1;
    }
    if pending {
        return Err(BetzaError::DanglingModifiers { betza: betza.to_string() });
    }
    let mut out: Vec<MoveAtom> = Vec::new();
    for (_, modality, dx, dy, reach, initial) in slots {
        match out.iter_mut().find(|e| e.dx == dx && e.dy == dy && e.reach == reach && e.initial == initial) {
            Some(e) => {
                e.quiet |= modality == 0;
                e.capture |= modality == 1;
            }
            None => out.push(MoveAtom { dx, dy, reach, quiet: modality == 0, capture: modality == 1, initial }),
        }
    }
    Ok(out)
}

/// Whether a piece of this Betza notation captures en passant: as in
/// Fairy-Stockfish, an `e` anywhere in it.
pub fn en_passant(betza: &str) -> bool {
    betza.contains('e')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(betza: &str) -> Vec<(i8, i8, Reach, bool, bool)> {
        let mut v: Vec<_> =
            parse(betza).unwrap().into_iter().map(|a| (a.dx, a.dy, a.reach, a.quiet, a.capture)).collect();
        v.sort_by_key(|t| (t.0, t.1, format!("{:?}", t.2), t.3, t.4));
        v
    }

    fn targets(betza: &str) -> Vec<(i8, i8)> {
        let mut v: Vec<_> = parse(betza).unwrap().into_iter().map(|a| (a.dx, a.dy)).collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn leapers() {
        assert_eq!(targets("W"), vec![(-1, 0), (0, -1), (0, 1), (1, 0)]);
        assert_eq!(targets("F").len(), 4);
        assert_eq!(targets("N").len(), 8);
        assert_eq!(targets("K").len(), 8);
        assert_eq!(targets("WF"), targets("K"));
        assert_eq!(targets("C"), targets("L"));
        assert_eq!(targets("Z"), targets("J"));
        assert_eq!(targets("G"), vec![(-3, -3), (-3, 3), (3, -3), (3, 3)]);
        assert_eq!(targets("H").len(), 4);
        assert_eq!(targets("A").len(), 4);
        assert_eq!(targets("D").len(), 4);
        assert!(parse("N").unwrap().iter().all(|a| a.reach == Reach::Leap && a.quiet && a.capture));
    }

    #[test]
    fn riders_and_compounds() {
        assert_eq!(targets("R"), targets("WW"));
        assert_eq!(targets("B"), targets("FF"));
        assert_eq!(targets("Q"), targets("RB"));
        assert!(parse("R").unwrap().iter().all(|a| a.reach == Reach::Ride { limit: 0 }));
        assert!(parse("NN").unwrap().iter().all(|a| a.reach == Reach::Ride { limit: 0 }));
        assert!(parse("R4").unwrap().iter().all(|a| a.reach == Reach::Ride { limit: 4 }));
        assert!(parse("W3").unwrap().iter().all(|a| a.reach == Reach::Ride { limit: 3 }));
        let amazon = parse("QN").unwrap();
        assert_eq!(amazon.len(), 16);
    }

    #[test]
    fn modalities() {
        let pawn = set("fmWfcF");
        assert_eq!(
            pawn,
            vec![(-1, 1, Reach::Leap, false, true), (0, 1, Reach::Leap, true, false), (1, 1, Reach::Leap, false, true)]
        );
        let s = parse("mNcB").unwrap();
        assert!(s.iter().filter(|a| a.reach == Reach::Leap).all(|a| a.quiet && !a.capture));
        assert!(s.iter().filter(|a| a.reach != Reach::Leap).all(|a| !a.quiet && a.capture));
    }

    #[test]
    fn directions() {
        assert_eq!(targets("fW"), vec![(0, 1)]);
        assert_eq!(targets("bW"), vec![(0, -1)]);
        assert_eq!(targets("vW"), vec![(0, -1), (0, 1)]);
        assert_eq!(targets("sW"), vec![(-1, 0), (1, 0)]);
        assert_eq!(targets("fsW"), vec![(-1, 0), (0, 1), (1, 0)]);
        assert_eq!(targets("lW"), vec![(-1, 0)]);
        assert_eq!(targets("rW"), vec![(1, 0)]);
        assert_eq!(targets("fF"), vec![(-1, 1), (1, 1)]);
        assert_eq!(targets("frF"), vec![(1, 1)]);
        assert_eq!(targets("flF"), vec![(-1, 1)]);
        assert_eq!(targets("fN"), vec![(-1, 2), (1, 2)]);
        assert_eq!(targets("ffN"), vec![(-1, 2), (1, 2)]);
        assert_eq!(targets("fsN"), vec![(-2, 1), (2, 1)]);
        assert_eq!(targets("frN"), vec![(2, 1)]);
        assert_eq!(targets("rfN"), vec![(1, 2)]);
        assert_eq!(targets("fhN"), vec![(-2, 1), (-1, 2), (1, 2), (2, 1)]);
        assert_eq!(targets("bN"), vec![(-1, -2), (1, -2)]);
        assert_eq!(targets("fR"), vec![(0, 1)]);
        assert_eq!(targets("WfF"), vec![(-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1)]);
    }

    #[test]
    fn hoppers_and_lame() {
        let cannon = parse("pR").unwrap();
        assert!(cannon.iter().all(|a| a.reach == Reach::Hop { limit: 0 }));
        let grasshopper = parse("gQ").unwrap();
        assert_eq!(grasshopper.len(), 8);
        assert!(grasshopper.iter().all(|a| a.reach == Reach::Hop { limit: 1 }));
        let horse = parse("nN").unwrap();
        assert!(horse.iter().all(|a| a.reach == Reach::Lame));
        let a = horse.iter().find(|a| (a.dx, a.dy) == (1, 2)).unwrap();
        assert_eq!(a.lame_path(), vec![(0, 1)]);
        let a = horse.iter().find(|a| (a.dx, a.dy) == (-2, -1)).unwrap();
        assert_eq!(a.lame_path(), vec![(-1, 0)]);
        let elephant = parse("nA").unwrap();
        assert_eq!(elephant[0].lame_path().len(), 1);
        assert_eq!(elephant[0].lame_path()[0], (elephant[0].dx / 2, elephant[0].dy / 2));
        let z = parse("nZ").unwrap();
        assert!(z.iter().all(|a| a.lame_path().len() == 2));
    }

    #[test]
    fn initial_moves_and_en_passant() {
        // The sergeant of wolf chess: a king that may also step two squares
        // straight forward, without jumping, from its initial region.
        let sergeant = parse("fKifmnD").unwrap();
        let initial: Vec<_> = sergeant.iter().filter(|a| a.initial).collect();
        assert_eq!(initial.len(), 1);
        assert_eq!((initial[0].dx, initial[0].dy, initial[0].reach), (0, 2, Reach::Lame));
        assert!(initial[0].quiet && !initial[0].capture);
        // Initial captures are dropped; the rest of the atom stays.
        assert!(parse("iD").unwrap().iter().all(|a| a.initial && a.quiet && !a.capture));
        // `e` changes no atom, it marks the piece.
        assert_eq!(parse("fmWfceF").unwrap(), parse("fmWfcF").unwrap());
        assert!(en_passant("fmWfceF") && !en_passant("fmWfcF"));
        // An initial atom and a plain one of the same step are two atoms.
        assert_eq!(parse("mDimD").unwrap().len(), 8);
    }

    #[test]
    fn errors() {
        assert!(matches!(parse("X"), Err(BetzaError::InvalidChar { ch: 'X', pos: 0, .. })));
        assert!(matches!(parse("Nq"), Err(BetzaError::InvalidChar { ch: 'q', pos: 1, .. })));
        assert!(matches!(parse("fm"), Err(BetzaError::DanglingModifiers { .. })));
        assert!(matches!(parse("3R"), Err(BetzaError::MisplacedDigit { pos: 0, .. })));
        assert!(matches!(parse("jW"), Err(BetzaError::Unsupported { ch: 'j', .. })));
        // As in Fairy-Stockfish, `n` has no effect on riders.
        assert_eq!(parse("nNN").unwrap(), parse("NN").unwrap());
        assert!(parse("").unwrap().is_empty());
        let msg = parse("WX").unwrap_err().to_string();
        assert!(msg.contains("'X'") && msg.contains("WX"), "{msg}");
    }
}
