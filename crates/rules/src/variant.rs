//! A variant definition compiled for move generation: piece types with their
//! attack tables on the variant's board, and the rules as bit sets.

use crate::betza::{self, Reach};
use crate::ini::{Config, GameEnd, KING_INDEX, PAWN_INDEX};

/// Most piece types one variant may use.
pub(crate) const MAX_TYPES: usize = 16;

/// A piece type of a compiled variant.
#[derive(Clone, Debug)]
pub(crate) struct PieceType {
    /// Upper-case FEN letter.
    pub letter: char,
    /// Fairy-Stockfish's internal index (orders pieces in hand).
    pub fsf: u8,
    /// Moves like a pawn (pushes, double steps, en passant, promotion).
    pub pawn: bool,
    /// Whose capture must be prevented (the king).
    pub royal: bool,
    /// Has lame leaps, whose blocking squares depend on the direction of travel.
    pub lame: bool,
}

/// A lame leap from one square.
#[derive(Clone, Debug)]
pub(crate) struct Lame {
    pub to: u8,
    pub path: u128,
    pub quiet: bool,
    pub capture: bool,
}

/// A line of squares from one square.
#[derive(Clone, Debug)]
pub(crate) struct Ray {
    /// The squares of the line.
    pub mask: u128,
    /// Square numbers increase along the line.
    pub ascending: bool,
    /// `None` for a rider; for a hopper whether it is a grasshopper.
    pub hop: Option<bool>,
    pub quiet: bool,
    pub capture: bool,
}

/// Movement of one piece type of one colour from one square.
#[derive(Clone, Debug, Default)]
pub(crate) struct SquareMoves {
    pub quiet_leaps: u128,
    pub capture_leaps: u128,
    pub lame: Vec<Lame>,
    pub rays: Vec<Ray>,
}

/// The rules of a chess variant, ready for [`crate::Position`].
#[derive(Debug)]
pub struct VariantDef {
    /// Variant name (ini section name).
    pub name: String,
    /// Number of files.
    pub files: u8,
    /// Number of ranks.
    pub ranks: u8,
    /// FEN of the start position.
    pub start_fen: String,
    /// Castling rights in FEN use rook files (Chess960 style) and castling
    /// moves are written king-takes-rook.
    pub chess960: bool,
    /// Game-end rules.
    pub game_end: GameEnd,
    pub(crate) types: Vec<PieceType>,
    pub(crate) king: Option<u8>,
    pub(crate) moves: Vec<SquareMoves>,
    pub(crate) board: u128,
    pub(crate) promotion_zone: [u128; 2],
    pub(crate) promotion_types: [Vec<u8>; 2],
    pub(crate) mandatory_pawn_promotion: bool,
    pub(crate) double_step_region: [u128; 2],
    pub(crate) en_passant_region: [u128; 2],
    pub(crate) castling: bool,
    pub(crate) castling_kingside_file: u8,
    pub(crate) castling_queenside_file: u8,
    pub(crate) castling_rank: [u8; 2],
    pub(crate) castling_king_file: u8,
    pub(crate) castling_king_piece: [Option<u8>; 2],
    pub(crate) castling_rook_kingside_file: u8,
    pub(crate) castling_rook_queenside_file: u8,
    pub(crate) castling_rook_pieces: [u32; 2],
    pub(crate) gating: bool,
    pub(crate) seirawan_gating: bool,
    /// Extinction: (piece types, or all pieces when `None`; count; opponent count; claim).
    pub(crate) extinction: Option<(Option<u32>, u32, u32, bool)>,
}

impl VariantDef {
    pub(crate) fn nsq(&self) -> usize {
        self.files as usize * self.ranks as usize
    }

    pub(crate) fn sq(&self, file: u8, rank: u8) -> u8 {
        rank * self.files + file
    }

    pub(crate) fn table(&self, t: u8, color: u8, sq: u8) -> &SquareMoves {
        &self.moves[(color as usize * self.types.len() + t as usize) * self.nsq() + sq as usize]
    }

    /// Squares attacked (`capture`) or reachable by quiet moves (`!capture`) by a
    /// piece of type `t` and colour `color` on `sq` given the occupancy.
    #[inline]
    pub(crate) fn reach(&self, t: u8, color: u8, sq: u8, occ: u128, capture: bool) -> u128 {
        let m = self.table(t, color, sq);
        let mut b = if capture { m.capture_leaps } else { m.quiet_leaps };
        for l in &m.lame {
            if (if capture { l.capture } else { l.quiet }) && l.path & occ == 0 {
                b |= 1u128 << l.to;
            }
        }
        for r in &m.rays {
            if !(if capture { r.capture } else { r.quiet }) {
                continue;
            }
            b |= match r.hop {
                None => upto_first(r.mask, occ, r.ascending),
                Some(grasshopper) => {
                    let blockers = r.mask & occ;
                    if blockers == 0 {
                        continue;
                    }
                    let beyond = r.mask & !upto_first(r.mask, occ, r.ascending);
                    if grasshopper { first(beyond, r.ascending) } else { upto_first(beyond, occ, r.ascending) }
                }
            };
        }
        b
    }

    /// Whether a piece of type `t` and colour `by` on one of the squares
    /// `pieces` attacks `sq` given the occupancy.
    #[inline]
    pub(crate) fn attacks_to(&self, t: u8, by: u8, sq: u8, occ: u128, pieces: u128) -> bool {
        // Traced back from the target with the opposite colour's movement.
        let m = self.table(t, by ^ 1, sq);
        if m.capture_leaps & pieces != 0 {
            return true;
        }
        for r in &m.rays {
            if !r.capture {
                continue;
            }
            let hit = match r.hop {
                None => upto_first(r.mask, occ, r.ascending),
                Some(false) => {
                    if r.mask & occ == 0 {
                        continue;
                    }
                    let beyond = r.mask & !upto_first(r.mask, occ, r.ascending);
                    upto_first(beyond, occ, r.ascending)
                }
                Some(true) => {
                    // The square next to the target is the hurdle; the
                    // grasshopper is the first piece behind it.
                    let next = first(r.mask, r.ascending);
                    if next & occ == 0 {
                        continue;
                    }
                    first(r.mask & !next & occ, r.ascending)
                }
            };
            if hit & pieces != 0 {
                return true;
            }
        }
        if self.types[t as usize].lame {
            let mut ps = pieces;
            while ps != 0 {
                let p = ps.trailing_zeros() as u8;
                ps &= ps - 1;
                if self.table(t, by, p).lame.iter().any(|l| l.capture && l.to == sq && l.path & occ == 0) {
                    return true;
                }
            }
        }
        false
    }

    /// Converts a 12-wide region to this board's layout.
    fn region(&self, r: u128) -> u128 {
        let mut b = 0;
        for rank in 0..self.ranks {
            for file in 0..self.files {
                if r >> (rank as u32 * 12 + file as u32) & 1 != 0 {
                    b |= 1u128 << self.sq(file, rank);
                }
            }
        }
        b
    }
}

/// The squares of `ray` up to and including its first occupied square.
#[inline]
fn upto_first(ray: u128, occ: u128, ascending: bool) -> u128 {
    let blockers = ray & occ;
    if blockers == 0 {
        return ray;
    }
    if ascending {
        let b = blockers & blockers.wrapping_neg();
        ray & (b | (b - 1))
    } else {
        let top = 127 - blockers.leading_zeros();
        ray & !((1u128 << top) - 1)
    }
}

/// The first square of `ray` (empty if none).
#[inline]
fn first(ray: u128, ascending: bool) -> u128 {
    if ray == 0 {
        0
    } else if ascending {
        ray & ray.wrapping_neg()
    } else {
        1u128 << (127 - ray.leading_zeros())
    }
}

fn types_of(set: u64, index_of: &[(u8, u8)]) -> Vec<u8> {
    index_of.iter().filter(|(fsf, _)| set >> fsf & 1 != 0).map(|&(_, t)| t).collect()
}

/// Compiles ini settings into a variant definition.
pub(crate) fn compile(name: &str, c: &Config) -> Result<VariantDef, String> {
    let files = c.max_file + 1;
    let ranks = c.max_rank + 1;
    if c.pieces.len() > MAX_TYPES {
        return Err(format!("more than {MAX_TYPES} piece types"));
    }
    let mut types = Vec::new();
    let mut atoms = Vec::new();
    let mut index_of = Vec::new();
    for (&fsf, spec) in &c.pieces {
        let parsed = betza::parse(&spec.betza).map_err(|e| e.to_string())?;
        let lame = parsed.iter().any(|a| a.reach == Reach::Lame);
        index_of.push((fsf, types.len() as u8));
        types.push(PieceType { letter: spec.letter, fsf, pawn: fsf == PAWN_INDEX, royal: fsf == KING_INDEX, lame });
        atoms.push(parsed);
    }
    let king = types.iter().position(|t| t.royal).map(|i| i as u8);
    let mut def = VariantDef {
        name: name.to_string(),
        files,
        ranks,
        start_fen: c.start_fen.clone(),
        chess960: c.chess960,
        game_end: c.game_end.clone(),
        types,
        king,
        moves: Vec::new(),
        board: 0,
        promotion_zone: [0; 2],
        promotion_types: [
            types_of(c.promotion_piece_types[0], &index_of),
            types_of(c.promotion_piece_types[1], &index_of),
        ],
        mandatory_pawn_promotion: c.mandatory_pawn_promotion,
        double_step_region: [0; 2],
        en_passant_region: [0; 2],
        castling: c.castling,
        castling_kingside_file: c.castling_kingside_file,
        castling_queenside_file: c.castling_queenside_file,
        castling_rank: [c.castling_rank, c.max_rank.saturating_sub(c.castling_rank)],
        castling_king_file: c.castling_king_file,
        castling_king_piece: [
            index_of.iter().find(|p| p.0 == c.castling_king_piece[0]).map(|p| p.1),
            index_of.iter().find(|p| p.0 == c.castling_king_piece[1]).map(|p| p.1),
        ],
        castling_rook_kingside_file: c.castling_rook_kingside_file,
        castling_rook_queenside_file: c.castling_rook_queenside_file,
        castling_rook_pieces: [
            types_of(c.castling_rook_pieces[0], &index_of).iter().fold(0, |m, &t| m | 1 << t),
            types_of(c.castling_rook_pieces[1], &index_of).iter().fold(0, |m, &t| m | 1 << t),
        ],
        gating: c.gating,
        seirawan_gating: c.seirawan_gating,
        extinction: None,
    };
    if files > 12 || ranks > 10 {
        return Err("board larger than 12x10".into());
    }
    def.board = (0..ranks).fold(0u128, |b, r| b | ((1u128 << files) - 1) << (r as u32 * files as u32));
    def.promotion_zone = [def.region(c.promotion_region[0]), def.region(c.promotion_region[1])];
    if c.double_step {
        def.double_step_region = [def.region(c.double_step_region[0]), def.region(c.double_step_region[1])];
    }
    def.en_passant_region = [def.region(c.en_passant_region[0]), def.region(c.en_passant_region[1])];
    if c.game_end.extinction_value != crate::ini::GameValue::None {
        let set = if c.extinction_set & 1 != 0 {
            None
        } else {
            Some(types_of(c.extinction_set, &index_of).iter().fold(0u32, |m, &t| m | 1 << t))
        };
        def.extinction = Some((
            set,
            c.game_end.extinction_piece_count,
            c.game_end.extinction_opponent_piece_count,
            c.game_end.extinction_claim,
        ));
    }

    // Movement tables.
    let nsq = def.nsq();
    let mut moves = Vec::with_capacity(2 * def.types.len() * nsq);
    for color in 0..2u8 {
        for parsed in &atoms {
            for sq in 0..nsq as u8 {
                let (f0, r0) = ((sq % files) as i32, (sq / files) as i32);
                let on = |x: i32, y: i32| x >= 0 && y >= 0 && x < files as i32 && y < ranks as i32;
                let mut m = SquareMoves::default();
                for a in parsed {
                    let s = if color == 0 { 1 } else { -1 };
                    let (dx, dy) = (a.dx as i32 * s, a.dy as i32 * s);
                    match a.reach {
                        Reach::Leap => {
                            let (x, y) = (f0 + dx, r0 + dy);
                            if on(x, y) {
                                let bit = 1u128 << (y * files as i32 + x);
                                if a.quiet {
                                    m.quiet_leaps |= bit;
                                }
                                if a.capture {
                                    m.capture_leaps |= bit;
                                }
                            }
                        }
                        Reach::Lame => {
                            let (x, y) = (f0 + dx, r0 + dy);
                            if on(x, y) {
                                let mut path = 0u128;
                                for (px, py) in a.lame_path() {
                                    let (px, py) = (f0 + px as i32 * s, r0 + py as i32 * s);
                                    path |= 1u128 << (py * files as i32 + px);
                                }
                                m.lame.push(Lame {
                                    to: (y * files as i32 + x) as u8,
                                    path,
                                    quiet: a.quiet,
                                    capture: a.capture,
                                });
                            }
                        }
                        Reach::Ride { limit } | Reach::Hop { limit } => {
                            let hop = match a.reach {
                                Reach::Hop { limit } => Some(limit == 1),
                                _ => None,
                            };
                            let max = if limit == 0 || hop == Some(true) { usize::MAX } else { limit as usize };
                            let mut squares = Vec::new();
                            let (mut x, mut y) = (f0 + dx, r0 + dy);
                            while on(x, y) && squares.len() < max {
                                squares.push((y * files as i32 + x) as u8);
                                x += dx;
                                y += dy;
                            }
                            if !squares.is_empty() {
                                let mask = squares.iter().fold(0u128, |b, &s| b | 1u128 << s);
                                let ascending = dy * files as i32 + dx > 0;
                                m.rays.push(Ray { mask, ascending, hop, quiet: a.quiet, capture: a.capture });
                            }
                        }
                    }
                }
                moves.push(m);
            }
        }
    }
    def.moves = moves;
    crate::position::State::parse(&def, &c.start_fen).map_err(|e| format!("invalid startFen: {e}"))?;
    Ok(def)
}
