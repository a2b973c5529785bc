//! Why a move is illegal: the reason carried by [`MoveError::Illegal`].
//!
//! Runs only on the error path. The move text (coordinate or SAN) is read
//! loosely for its origin, destination, piece and suffixes, then the move is
//! classified against the rules (RULES.md): the game is over; the prelude of
//! a gating variant; no piece or the wrong colour on the origin; the piece's
//! movement; a blocked path; the mover's own piece on the destination
//! (except a Camel and Rhino Chess swap); promotion; en passant; castling;
//! takeovers and swaps; and last the king's safety after the whole move
//! (pins, check, moving into check). Every reason is short, lower case and
//! without a final period.
//!
//! [`MoveError::Illegal`]: crate::MoveError::Illegal

use crate::fen::square_name;
use menagerie_geometry::{File, Square};
use menagerie_pieces::{Color, Piece, PieceKind};
use menagerie_variants::{AnyPosition, Castling, Kidnap, Move, MoveKind, MoveList, Rules, Setup, VariantId};

/// The reason when nothing more specific applies.
const GENERIC: &str = "not a legal move in this position";
/// Longer texts are not analysed (no move is this long).
const MAX_TEXT: usize = 64;

/// A short explanation of why `text` is not a legal move in `pos`.
pub(crate) fn explain(pos: &AnyPosition, text: &str) -> String {
    let legal = pos.legal_moves();
    if legal.is_empty()
        && let Some(o) = pos.outcome()
    {
        return format!("the game is over ({})", o.describe());
    }
    let t = text.trim();
    let cx = Cx::new(pos, legal);
    if t.len() > MAX_TEXT || !t.is_ascii() {
        return cx.fallback();
    }
    cx.explain(t)
}

/// What the text asks for.
enum Intent {
    Accept,
    Decline,
    /// `0000`: the wire form of a decline.
    Null,
    /// `K@sq`: the wire form of an accept.
    KingDrop(Option<Square>),
    /// Placement: reserve letter, files in the order written, the rank if a square was named.
    Place {
        letter: char,
        files: Vec<u8>,
        rank: Option<u8>,
    },
    Castle {
        long: bool,
    },
    Coord {
        from: Square,
        to: Square,
        suffix: String,
    },
    San(San),
    Swap {
        a: Square,
        b: Square,
        promo: Option<char>,
    },
    Unknown,
}

/// A SAN move as written: the piece, what disambiguates it, its target, a
/// promotion letter and whether it is marked as a takeover.
struct San {
    kind: PieceKind,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Square,
    promo: Option<char>,
    takeover: bool,
}

struct Cx<'a> {
    pos: &'a AnyPosition,
    legal: MoveList,
    variant: VariantId,
    rules: Rules,
    setup: Setup,
    files: u8,
    ranks: u8,
    us: Color,
}

fn kname(k: PieceKind) -> String {
    k.name().to_ascii_lowercase()
}

fn article(k: PieceKind) -> &'static str {
    if matches!(k, PieceKind::Alpaca | PieceKind::Alseid) { "an" } else { "a" }
}

impl<'a> Cx<'a> {
    fn new(pos: &'a AnyPosition, legal: MoveList) -> Cx<'a> {
        let variant = pos.variant();
        let (files, ranks) = variant.size();
        Cx { pos, legal, variant, rules: variant.rules(), setup: pos.to_setup(), files, ranks, us: pos.side_to_move() }
    }

    // ----- squares ---------------------------------------------------------

    fn sq(&self, f: i32, r: i32) -> Option<Square> {
        ((0..self.files as i32).contains(&f) && (0..self.ranks as i32).contains(&r))
            .then(|| Square((r * self.files as i32 + f) as u8))
    }
    fn fr(&self, s: Square) -> (i32, i32) {
        ((s.0 % self.files) as i32, (s.0 / self.files) as i32)
    }
    fn name(&self, s: Square) -> String {
        square_name(s, self.files)
    }
    fn at(&self, s: Square) -> Option<Piece> {
        self.pos.piece_at(s)
    }
    fn all_squares(&self) -> impl Iterator<Item = Square> + '_ {
        (0..self.files as u16 * self.ranks as u16).map(|i| Square(i as u8))
    }
    fn king(&self, pos: &AnyPosition, c: Color) -> Option<Square> {
        self.all_squares().find(|&s| pos.piece_at(s) == Some(Piece::new(c, PieceKind::King)))
    }
    fn attacked(&self, s: Square) -> bool {
        self.pos.is_attacked(s, self.us.flip())
    }
    fn home_rank(&self, c: Color) -> i32 {
        if c == Color::White { 0 } else { self.ranks as i32 - 1 }
    }
    fn last_rank(&self) -> i32 {
        self.home_rank(self.us.flip())
    }
    /// Reads a square (file letter, one or two digits) at `b[*i..]`.
    fn read_square(&self, b: &[u8], i: &mut usize) -> Option<Square> {
        let f = *b.get(*i)?;
        if !f.is_ascii_lowercase() {
            return None;
        }
        let digits = b[*i + 1..].iter().take(2).take_while(|d| d.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let r: i32 = b[*i + 1..*i + 1 + digits].iter().fold(0, |a, &d| a * 10 + (d - b'0') as i32);
        *i += 1 + digits;
        self.sq((f - b'a') as i32, r - 1)
    }

    // ----- reading the text ------------------------------------------------

    fn intent(&self, t: &str) -> Intent {
        let t = t.trim_end_matches(['+', '#', '!', '?']);
        match t {
            "accept" => return Intent::Accept,
            "decline" => return Intent::Decline,
            "0000" => return Intent::Null,
            "O-O" | "0-0" => return Intent::Castle { long: false },
            "O-O-O" | "0-0-0" => return Intent::Castle { long: true },
            _ => {}
        }
        let b = t.as_bytes();
        if let Some((p, rest)) = t.split_once('@') {
            let (&[c], rb) = (p.as_bytes(), rest.as_bytes()) else { return Intent::Unknown };
            let c = c as char;
            let mut i = 0;
            let square = self.read_square(rb, &mut i).filter(|_| i == rb.len());
            if c.eq_ignore_ascii_case(&'k') {
                return Intent::KingDrop(square);
            }
            if !rb.is_empty() && rb.iter().all(|x| x.is_ascii_lowercase()) {
                return Intent::Place { letter: c, files: rb.iter().map(|x| x - b'a').collect(), rank: None };
            }
            return match square {
                Some(s) => {
                    let (f, r) = self.fr(s);
                    Intent::Place { letter: c, files: vec![f as u8], rank: Some(r as u8) }
                }
                None => Intent::Unknown,
            };
        }
        if let Some((l, r)) = t.split_once("<>") {
            let skip = |s: &str| s.strip_prefix(|c: char| c.is_ascii_uppercase()).unwrap_or(s).to_string();
            let (l, r) = (skip(l), skip(r));
            let (r, promo) = match r.split_once('=') {
                Some((r, p)) => (r.to_string(), p.chars().next()),
                None => (r, None),
            };
            let (mut i, mut j) = (0, 0);
            let a = self.read_square(l.as_bytes(), &mut i).filter(|_| i == l.len());
            let bb = self.read_square(r.as_bytes(), &mut j).filter(|_| j == r.len());
            return match (a, bb) {
                (Some(a), Some(b)) => Intent::Swap { a, b, promo },
                _ => Intent::Unknown,
            };
        }
        // Coordinates.
        let mut i = 0;
        if let Some(from) = self.read_square(b, &mut i) {
            let mut j = i;
            if let Some(to) = self.read_square(b, &mut j) {
                let suffix = &t[j..];
                if suffix.len() <= 2 && suffix.bytes().all(|x| x.is_ascii_lowercase()) {
                    return Intent::Coord { from, to, suffix: suffix.to_string() };
                }
            }
        }
        self.san(t)
    }

    fn san(&self, t: &str) -> Intent {
        let (head, tail) = match t.find('(') {
            Some(i) => (&t[..i], &t[i..]),
            None => (t, ""),
        };
        let takeover = tail.starts_with("(=");
        let mut chars: Vec<char> = head.chars().collect();
        let mut kind = PieceKind::Pawn;
        if let Some(&c) = chars.first()
            && c.is_ascii_uppercase()
        {
            let Some(k) = PieceKind::from_letter(c) else { return Intent::Unknown };
            kind = k;
            chars.remove(0);
        }
        let mut promo = None;
        if let Some(&c) = chars.last()
            && c.is_ascii_alphabetic()
            && (c.is_ascii_uppercase() || chars.len() > 2 && chars[chars.len() - 2] == '=')
        {
            promo = Some(c);
            chars.pop();
        }
        let body: String = chars.into_iter().filter(|&c| !matches!(c, 'x' | '-' | ':' | '=')).collect();
        let Some(last) = body.rfind(|c: char| c.is_ascii_lowercase()) else { return Intent::Unknown };
        let (disamb, dest) = body.split_at(last);
        let mut i = 0;
        let Some(to) = self.read_square(dest.as_bytes(), &mut i).filter(|_| i == dest.len()) else {
            return Intent::Unknown;
        };
        let mut from_file = None;
        let mut from_rank = None;
        let mut d = disamb;
        if let Some(c) = d.chars().next()
            && c.is_ascii_lowercase()
        {
            from_file = Some(c as u8 - b'a');
            d = &d[1..];
        }
        if !d.is_empty() {
            match d.parse::<u8>().ok().and_then(|r| r.checked_sub(1)) {
                Some(r) => from_rank = Some(r),
                None => return Intent::Unknown,
            }
        }
        Intent::San(San { kind, from_file, from_rank, to, promo, takeover })
    }

    // ----- the classification ----------------------------------------------

    fn fallback(&self) -> String {
        if self.pos.is_check() { "it does not get the king out of check".into() } else { GENERIC.into() }
    }

    fn reserve_unplaced(&self) -> bool {
        self.setup.reserve.as_ref().is_some_and(|r| r.entries.iter().any(|e| e.file.is_none()))
    }
    fn pending(&self) -> bool {
        self.setup.reserve.as_ref().is_some_and(|r| r.pending)
    }
    fn in_prelude(&self) -> bool {
        self.rules.gating.is_some() && (self.pending() || self.reserve_unplaced())
    }
    /// `A@g` or `A@bg`, the form of a placement.
    fn place_form(&self) -> String {
        match self.rules.gating {
            Some(g) if g.count == 2 => format!("{}@<files>", g.piece.letter()),
            Some(g) => format!("{}@<file>", g.piece.letter()),
            None => String::new(),
        }
    }
    fn prelude_only(&self) -> String {
        match self.rules.gating {
            Some(_) if self.pending() => "during the prelude only accept or decline is legal".into(),
            Some(g) => format!(
                "during the prelude only placing the {}{} is legal ({})",
                kname(g.piece),
                if g.count == 2 { "s" } else { "" },
                self.place_form()
            ),
            None => GENERIC.into(),
        }
    }

    fn explain(&self, t: &str) -> String {
        let intent = self.intent(t);
        let prelude = self.in_prelude();
        match intent {
            Intent::Accept | Intent::Decline | Intent::Null | Intent::KingDrop(_) => self.decision(&intent),
            Intent::Place { letter, ref files, rank } => self.place(letter, files, rank),
            _ if prelude => self.prelude_only(),
            Intent::Castle { long } => self.castling(long),
            Intent::Coord { from, to, ref suffix } => self.coord(from, to, suffix),
            Intent::San(san) => self.san_move(san),
            Intent::Swap { a, b, promo } => self.explain_move(a, b, promo, false),
            Intent::Unknown => self.fallback(),
        }
    }

    fn decision(&self, intent: &Intent) -> String {
        let Some(g) = self.rules.gating else {
            return match intent {
                Intent::Null => "passing (0000) is not a move".into(),
                Intent::KingDrop(_) => "a king cannot be dropped".into(),
                _ => format!("there is no prelude in {}", self.variant.name()),
            };
        };
        if !self.in_prelude() {
            return match intent {
                Intent::KingDrop(_) => "a king cannot be dropped".into(),
                Intent::Null => "passing (0000) is not a move".into(),
                _ => "the prelude is over".into(),
            };
        }
        if !self.pending() {
            return format!(
                "the reserve pieces are already accepted: place the {} ({})",
                kname(g.piece),
                self.place_form()
            );
        }
        if let Intent::KingDrop(s) = intent {
            let k = self.king(self.pos, self.us);
            if *s != k
                && let Some(k) = k
            {
                return format!("accept is written K@{} (your king's square)", self.name(k));
            }
        }
        self.fallback()
    }

    fn place(&self, letter: char, files: &[u8], rank: Option<u8>) -> String {
        let Some(g) = self.rules.gating else {
            return format!("there are no reserve pieces in {}", self.variant.name());
        };
        if !self.in_prelude() {
            return "the prelude is over".into();
        }
        if self.pending() {
            return "the reserve pieces must be accepted or declined first".into();
        }
        let l = g.piece.letter();
        if letter.to_ascii_uppercase() != l {
            return format!("the reserve piece is the {} ({l})", kname(g.piece));
        }
        let home = self.home_rank(self.us);
        if rank.is_some_and(|r| r as i32 != home) {
            return format!("a reserve piece enters on its gate file's home square (rank {})", home + 1);
        }
        if files.len() != g.count as usize {
            return if g.count == 2 {
                format!("name exactly two gate files ({l}@bg)")
            } else {
                format!("name exactly one gate file ({l}@g)")
            };
        }
        let top = 8.min(self.files);
        if let Some(&f) = files.iter().find(|&&f| f >= top) {
            return format!("{} is not a gate file", (b'a' + f.min(25)) as char);
        }
        if files.len() == 2 && files[0] == files[1] {
            return "the two gate files must differ".into();
        }
        if files.windows(2).any(|w| w[0] > w[1]) {
            let mut s = files.to_vec();
            s.sort_unstable();
            let fs: String = s.iter().map(|&f| File(f).letter()).collect();
            return format!("write the gate files in alphabetical order ({l}@{fs})");
        }
        for &f in files {
            let Some(sq) = self.sq(f as i32, home) else { continue };
            match self.at(sq) {
                Some(p) if p.color == self.us && p.kind == PieceKind::Alseid => {
                    return format!(
                        "the gate file {} needs one of your pieces other than an alseid on {}",
                        File(f).letter(),
                        self.name(sq)
                    );
                }
                Some(p) if p.color == self.us => {}
                _ => {
                    return format!("the gate file {} needs one of your pieces on {}", File(f).letter(), self.name(sq));
                }
            }
        }
        let mask: u8 = files.iter().fold(0, |m, &f| m | 1 << f);
        if mask & 1 << 4 != 0 && mask & (1 | 1 << 7) != 0 {
            return "the king's file and a rook's file cannot both be gates (two pieces would enter at one castling)"
                .into();
        }
        if g.same_file && self.us == Color::Black {
            let white: String = self
                .setup
                .reserve
                .iter()
                .flat_map(|r| r.entries.iter())
                .filter(|e| e.piece.color == Color::White)
                .filter_map(|e| e.file.map(|f| f.letter()))
                .collect();
            let fs: String = files.iter().map(|&f| File(f).letter()).collect();
            if !white.is_empty() && white != fs {
                return format!("in {} Black must choose White's gate file ({white})", self.variant.name());
            }
        }
        self.fallback()
    }

    fn castling(&self, long: bool) -> String {
        if !self.rules.castling {
            return format!("there is no castling in {}", self.variant.name());
        }
        let us = self.us;
        let home = self.home_rank(us);
        let flag = match (us, long) {
            (Color::White, false) => Castling::WK,
            (Color::White, true) => Castling::WQ,
            (Color::Black, false) => Castling::BK,
            (Color::Black, true) => Castling::BQ,
        };
        if self.rules.chess960 {
            return self.castling_960(flag, long);
        }
        let Some(ksq) = self.sq(4, home) else { return GENERIC.into() };
        if self.at(ksq) != Some(Piece::new(us, PieceKind::King)) || !self.setup.castling.has(flag) {
            return "castling rights are gone".into();
        }
        if self.pos.is_check() {
            return "the king is in check".into();
        }
        let between: &[i32] = if long { &[1, 2, 3] } else { &[5, 6] };
        if between.iter().any(|&f| self.sq(f, home).and_then(|s| self.at(s)).is_some()) {
            return "squares between king and rook are occupied".into();
        }
        let (pass, dest) = if long { (3, 2) } else { (5, 6) };
        let (Some(pass), Some(dest)) = (self.sq(pass, home), self.sq(dest, home)) else { return GENERIC.into() };
        if self.attacked(pass) {
            return format!("the king would pass through an attacked square {}", self.name(pass));
        }
        if self.attacked(dest) {
            return format!("the king would be in check on {}", self.name(dest));
        }
        self.safety(Piece::new(us, PieceKind::King), Move::new(ksq, dest, MoveKind::Castle))
    }

    /// Why a Chess960 castling (`flag`) is illegal.
    fn castling_960(&self, flag: u8, long: bool) -> String {
        let i = Castling::RIGHTS.iter().position(|r| r.0 == flag).unwrap_or(0);
        let (Some(rsq), Some(ksq)) = (self.pos.castling_rooks()[i], self.king(self.pos, self.us)) else {
            return "castling rights are gone".into();
        };
        if self.pos.is_check() {
            return "the king is in check".into();
        }
        let home = self.home_rank(self.us);
        let (kf, rf) = (self.fr(ksq).0, self.fr(rsq).0);
        let (king_to, rook_to) = if long { (2, 3) } else { (6, 5) };
        let span = |a: i32, b: i32| a.min(b)..=a.max(b);
        let blocked = span(kf, king_to)
            .chain(span(rf, rook_to))
            .filter_map(|f| self.sq(f, home))
            .any(|s| s != ksq && s != rsq && self.at(s).is_some());
        if blocked {
            return "squares the king or rook must cross or reach are occupied".into();
        }
        for f in span(kf, king_to) {
            let Some(s) = self.sq(f, home) else { continue };
            if s != ksq && self.attacked(s) {
                return if f == king_to {
                    format!("the king would be in check on {}", self.name(s))
                } else {
                    format!("the king would pass through an attacked square {}", self.name(s))
                };
            }
        }
        "the castling rook shields the king: castling would expose it to an attack along the rank".into()
    }

    fn coord(&self, from: Square, to: Square, suffix: &str) -> String {
        let mover = self.at(from).filter(|p| p.color == self.us).map(|p| p.kind);
        let leaper = matches!(mover, Some(PieceKind::Knight | PieceKind::Zebra | PieceKind::Camel | PieceKind::Rhino));
        let is_mark = |c: char| c == 't' || (leaper && mover.is_some_and(|k| k.letter().to_ascii_lowercase() == c));
        let mut cs = suffix.chars();
        let (promo, takeover) = match (cs.next(), cs.next()) {
            (None, _) => (None, false),
            (Some(c), None) if is_mark(c) && (leaper || c == 't') => (None, true),
            (Some(c), None) => (Some(c), false),
            (Some(p), Some(c)) if is_mark(c) => (Some(p), true),
            _ => return "its suffix does not fit the move".into(),
        };
        self.explain_move(from, to, promo, takeover)
    }

    fn san_move(&self, san: San) -> String {
        let San { kind, from_file, from_rank, to, promo, takeover } = san;
        let k = kname(kind);
        let own = Piece::new(self.us, kind);
        let mine: Vec<Square> = self.all_squares().filter(|&s| self.at(s) == Some(own)).collect();
        if mine.is_empty() {
            return format!("you have no {k}");
        }
        let cands: Vec<Square> = mine
            .iter()
            .copied()
            .filter(|&s| {
                let (f, r) = self.fr(s);
                from_file.is_none_or(|x| x as i32 == f) && from_rank.is_none_or(|x| x as i32 == r) && s != to
            })
            .collect();
        if cands.is_empty() {
            let place = match (from_file, from_rank) {
                (Some(f), Some(r)) => format!("on {}{}", (b'a' + f.min(25)) as char, r as u32 + 1),
                (Some(f), None) => format!("on the {}-file", (b'a' + f.min(25)) as char),
                (None, Some(r)) => format!("on rank {}", r as u32 + 1),
                (None, None) => format!("other than on {}", self.name(to)),
            };
            return format!("you have no {k} {place}");
        }
        let reach: Vec<Square> = cands.iter().copied().filter(|&s| self.reaches(kind, s, to)).collect();
        let pick: Vec<Square> = if !reach.is_empty() {
            reach
        } else if cands.len() == 1 {
            cands
        } else {
            let same_file: Vec<Square> = cands.iter().copied().filter(|&s| self.fr(s).0 == self.fr(to).0).collect();
            if kind == PieceKind::Pawn && same_file.len() == 1 {
                same_file
            } else {
                return format!("no {k} of yours can move to {}", self.name(to));
            }
        };
        let mut reasons: Vec<String> = Vec::new();
        for s in pick {
            let r = self.explain_move(s, to, promo, takeover);
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
        reasons.truncate(3);
        reasons.join("; ")
    }

    /// True if a `kind` could go `from` → `to` on some board (movement
    /// shape only, including takeover jumps and double steps).
    fn reaches(&self, kind: PieceKind, from: Square, to: Square) -> bool {
        let (f0, r0) = self.fr(from);
        let (f1, r1) = self.fr(to);
        let (df, dr) = (f1 - f0, r1 - r0);
        let (a, b) = (df.abs().min(dr.abs()), df.abs().max(dr.abs()));
        let line = df == 0 || dr == 0 || df.abs() == dr.abs();
        let jump = self.rules.takeovers;
        match kind {
            PieceKind::King => b == 1 || (jump && b == 2 && line) || (self.rules.castling && dr == 0 && b == 2),
            PieceKind::Knight | PieceKind::Zebra => (a, b) == (1, 2),
            PieceKind::Camel => (a, b) == (1, 1) || (a, b) == (1, 3),
            PieceKind::Rhino => (a, b) == (0, 1) || (a, b) == (2, 3),
            PieceKind::Wazir => (a, b) == (0, 1) || (jump && (a, b) == (0, 2)),
            PieceKind::Alpaca => a == 0 && (b == 1 || b == 2),
            PieceKind::Rook => df == 0 || dr == 0,
            PieceKind::Bishop => df.abs() == dr.abs(),
            PieceKind::Queen | PieceKind::Alseid => line,
            PieceKind::Pawn => {
                let dir = if self.us == Color::White { 1 } else { -1 };
                (df == 0 && (dr == dir || dr == 2 * dir))
                    || (df.abs() == 1 && dr == dir)
                    || (jump && df.abs() == 2 && dr == 2 * dir)
            }
        }
    }

    fn near_camel_rhino(&self, s: Square) -> bool {
        let (f, r) = self.fr(s);
        (-1..=1).any(|x| {
            (-1..=1).any(|y| {
                (x, y) != (0, 0)
                    && self
                        .sq(f + x, r + y)
                        .and_then(|n| self.at(n))
                        .is_some_and(|p| p.color == self.us && matches!(p.kind, PieceKind::Camel | PieceKind::Rhino))
            })
        })
    }

    fn explain_move(&self, from: Square, to: Square, promo: Option<char>, takeover: bool) -> String {
        let Some(p) = self.at(from) else { return format!("there is no piece on {}", self.name(from)) };
        let k = kname(p.kind);
        if p.color != self.us {
            return format!(
                "the {k} on {} belongs to {}, but {} is to move",
                self.name(from),
                p.color.name(),
                self.us.name()
            );
        }
        if from == to {
            return format!("{} {k} cannot move to its own square", article(p.kind));
        }
        let (f0, r0) = self.fr(from);
        let (f1, r1) = self.fr(to);
        if p.kind == PieceKind::King
            && self.rules.castling
            && r0 == r1
            && (f1 - f0).abs() == 2
            && r0 == self.home_rank(self.us)
            && f0 == 4
        {
            return self.castling(f1 < f0);
        }
        // Chess960 castling written king-takes-rook.
        if p.kind == PieceKind::King
            && self.rules.chess960
            && r0 == r1
            && r0 == self.home_rank(self.us)
            && self.at(to) == Some(Piece::new(self.us, PieceKind::Rook))
        {
            return self.castling(f1 < f0);
        }
        if let Some(q) = self.at(to)
            && q.color == self.us
        {
            let adjacent = (f1 - f0).abs() <= 1 && (r1 - r0).abs() <= 1;
            if self.rules.swaps && adjacent {
                return self.swap(from, to, promo);
            }
            let own = format!("{} holds your own {}", self.name(to), kname(q.kind));
            return if self.rules.swaps { format!("{own} (only adjacent pieces swap)") } else { own };
        }
        let m = if takeover
            && matches!(p.kind, PieceKind::Knight | PieceKind::Zebra | PieceKind::Camel | PieceKind::Rhino)
        {
            self.takeover_leap(p, from, to)
        } else if takeover && !self.rules.takeovers {
            Err(format!("there are no takeovers in {}", self.variant.name()))
        } else {
            self.pseudo(p, from, to)
        };
        let m = match m {
            Ok(m) => m,
            Err(r) => return r,
        };
        let m = match self.promotion(p, from, to, promo) {
            Ok(Some(k)) => m.with_promotion(k),
            Ok(None) => m,
            Err(r) => return r,
        };
        self.safety(p, m)
    }

    fn cant(&self, p: Piece, from: Square, to: Square) -> String {
        format!("{} {} on {} cannot move to {}", article(p.kind), kname(p.kind), self.name(from), self.name(to))
    }

    /// The ordinary (or jump-takeover) move of `p` from `from` to `to`,
    /// ignoring the king's safety, or why there is none.
    fn pseudo(&self, p: Piece, from: Square, to: Square) -> Result<Move, String> {
        let (f0, r0) = self.fr(from);
        let (f1, r1) = self.fr(to);
        let (df, dr) = (f1 - f0, r1 - r0);
        let (a, b) = (df.abs().min(dr.abs()), df.abs().max(dr.abs()));
        let target = self.at(to);
        let normal = Move::normal(from, to);
        let line = df == 0 || dr == 0 || df.abs() == dr.abs();
        let jumps = self.rules.takeovers;
        match p.kind {
            PieceKind::King => {
                if b == 1 {
                    Ok(normal)
                } else if jumps && b == 2 && line {
                    self.jump(p, from, to, false)
                } else {
                    Err(self.cant(p, from, to))
                }
            }
            PieceKind::Knight | PieceKind::Zebra if (a, b) == (1, 2) => Ok(normal),
            PieceKind::Camel if (a, b) == (1, 1) || (a, b) == (1, 3) => Ok(normal),
            PieceKind::Rhino if (a, b) == (0, 1) || (a, b) == (2, 3) => Ok(normal),
            PieceKind::Wazir if (a, b) == (0, 1) => Ok(normal),
            PieceKind::Wazir if jumps && (a, b) == (0, 2) => self.jump(p, from, to, false),
            PieceKind::Alpaca if (a, b) == (0, 1) => Ok(normal),
            PieceKind::Alpaca if (a, b) == (0, 2) => match target {
                Some(_) => Err(format!("an alpaca's two-square leap cannot capture ({} is occupied)", self.name(to))),
                None => Ok(normal),
            },
            PieceKind::Rook | PieceKind::Bishop | PieceKind::Queen | PieceKind::Alseid => {
                let ok = match p.kind {
                    PieceKind::Rook => df == 0 || dr == 0,
                    PieceKind::Bishop => df.abs() == dr.abs(),
                    _ => line,
                };
                if !ok {
                    return Err(self.cant(p, from, to));
                }
                let (sf, sr) = (df.signum(), dr.signum());
                let blockers: Vec<Square> = (1..b)
                    .filter_map(|i| self.sq(f0 + i * sf, r0 + i * sr))
                    .filter(|&s| self.at(s).is_some())
                    .collect();
                if let Some(&first) = blockers.first() {
                    if jumps && p.kind != PieceKind::Alseid && blockers.len() == 1 && target.is_none() {
                        let before = self.sq(f1 - sf, r1 - sr);
                        if before == Some(first) {
                            return self.jump(p, from, to, true);
                        }
                    }
                    return Err(format!(
                        "the path from {} to {} is blocked at {}",
                        self.name(from),
                        self.name(to),
                        self.name(first)
                    ));
                }
                if p.kind == PieceKind::Alseid {
                    if target.is_some() {
                        return Err(format!("an alseid never captures ({} is occupied)", self.name(to)));
                    }
                    if self.kidnap_victim(from, to).is_some() {
                        return Ok(Move::new(from, to, MoveKind::Kidnap));
                    }
                }
                Ok(normal)
            }
            PieceKind::Pawn => self.pawn(p, from, to),
            _ => Err(self.cant(p, from, to)),
        }
    }

    fn pawn(&self, p: Piece, from: Square, to: Square) -> Result<Move, String> {
        let (f0, r0) = self.fr(from);
        let (f1, r1) = self.fr(to);
        let (df, dr) = (f1 - f0, r1 - r0);
        let dir = if self.us == Color::White { 1 } else { -1 };
        let target = self.at(to);
        let step = if self.files == 10 { 2 } else { 1 };
        let start = if self.us == Color::White { step } else { self.ranks as i32 - 1 - step };
        let occupied = || format!("a pawn captures only diagonally ({} is occupied)", self.name(to));
        if df == 0 && dr == dir {
            return if target.is_some() { Err(occupied()) } else { Ok(Move::normal(from, to)) };
        }
        if df == 0 && dr == 2 * dir {
            if r0 != start {
                return Err("a pawn can advance two squares only from its starting rank".into());
            }
            if let Some(mid) = self.sq(f0, r0 + dir)
                && self.at(mid).is_some()
            {
                return Err(format!(
                    "the path from {} to {} is blocked at {}",
                    self.name(from),
                    self.name(to),
                    self.name(mid)
                ));
            }
            return if target.is_some() { Err(occupied()) } else { Ok(Move::new(from, to, MoveKind::DoublePush)) };
        }
        if df.abs() == 1 && dr == dir {
            if target.is_some() {
                return Ok(Move::normal(from, to));
            }
            let beside = self.sq(f1, r0);
            let passer = beside.filter(|&s| self.at(s) == Some(Piece::new(self.us.flip(), PieceKind::Pawn)));
            if let Some(s) = passer {
                if self.setup.ep == Some(to) {
                    return Ok(Move::new(from, to, MoveKind::EnPassant));
                }
                return Err(format!(
                    "en passant is not available (the pawn on {} did not just advance two squares)",
                    self.name(s)
                ));
            }
            return Err(format!("a pawn moves diagonally only to capture ({} is empty)", self.name(to)));
        }
        if self.rules.takeovers && df.abs() == 2 && dr == 2 * dir {
            return self.jump(p, from, to, false);
        }
        Err(self.cant(p, from, to))
    }

    /// A jump takeover landing on `to` over the square just before it.
    fn jump(&self, p: Piece, from: Square, to: Square, slider: bool) -> Result<Move, String> {
        let (f0, r0) = self.fr(from);
        let (f1, r1) = self.fr(to);
        let (sf, sr) = ((f1 - f0).signum(), (r1 - r0).signum());
        let Some(jumped) = self.sq(f1 - sf, r1 - sr) else { return Err(self.cant(p, from, to)) };
        let blocked =
            || format!("the path from {} to {} is blocked at {}", self.name(from), self.name(to), self.name(jumped));
        match self.at(jumped) {
            None => Err(self.cant(p, from, to)),
            Some(q) if q.color == self.us => Err(if slider { blocked() } else { self.cant(p, from, to) }),
            Some(q) if q.kind == PieceKind::King => Err("a takeover cannot convert the king".into()),
            Some(_) => {
                if !self.near_camel_rhino(from) {
                    return Err(format!(
                        "a takeover jump needs a friendly camel or rhino next to the {}",
                        kname(p.kind)
                    ));
                }
                if self.at(to).is_some() {
                    return Err(blocked());
                }
                if self.attacked(to) {
                    return Err(format!("the landing square {} is defended", self.name(to)));
                }
                if p.kind == PieceKind::King && self.attacked(jumped) {
                    return Err(format!(
                        "the king can only take over an undefended piece ({} is defended)",
                        self.name(jumped)
                    ));
                }
                Ok(Move::new(from, to, MoveKind::Jump))
            }
        }
    }

    /// The squares a Knight/Zebra/Camel/Rhino leap `from` → `to` jumps, if
    /// it is one of its leaps (RULES.md §4.3).
    fn leap_path(&self, kind: PieceKind, from: Square, to: Square) -> Option<Vec<Square>> {
        let (f0, r0) = self.fr(from);
        let (f1, r1) = self.fr(to);
        let (df, dr) = (f1 - f0, r1 - r0);
        let (sf, sr) = (df.signum(), dr.signum());
        let (a, b) = (df.abs().min(dr.abs()), df.abs().max(dr.abs()));
        let long_rank = dr.abs() > df.abs();
        let orth = |n: i32| if long_rank { self.sq(f0, r0 + n * sr) } else { self.sq(f0 + n * sf, r0) };
        let v = match (kind, a, b) {
            (PieceKind::Knight, 1, 2) => vec![orth(1)?],
            (PieceKind::Zebra, 1, 2) => vec![self.sq(f0 + sf, r0 + sr)?],
            (PieceKind::Camel, 1, 3) => vec![orth(1)?, orth(2)?],
            (PieceKind::Rhino, 2, 3) => vec![self.sq(f0 + sf, r0 + sr)?, self.sq(f0 + 2 * sf, r0 + 2 * sr)?],
            _ => return None,
        };
        Some(v)
    }

    fn takeover_leap(&self, p: Piece, from: Square, to: Square) -> Result<Move, String> {
        let k = kname(p.kind);
        if !self.rules.takeovers {
            return Err(format!("there are no takeovers in {}", self.variant.name()));
        }
        let Some(path) = self.leap_path(p.kind, from, to) else {
            return Err(format!(
                "{} {k} on {} has no takeover leap to {}",
                article(p.kind),
                self.name(from),
                self.name(to)
            ));
        };
        if matches!(p.kind, PieceKind::Knight | PieceKind::Zebra) && !self.near_camel_rhino(from) {
            return Err(format!("a {k}'s takeover needs a friendly camel or rhino next to it"));
        }
        let enemy: Vec<Piece> = path.iter().filter_map(|&s| self.at(s)).filter(|q| q.color != self.us).collect();
        if enemy.iter().all(|q| q.kind == PieceKind::King) {
            if !enemy.is_empty() {
                return Err("a takeover cannot convert the king".into());
            }
            let names: Vec<String> = path.iter().map(|&s| self.name(s)).collect();
            return Err(format!(
                "a takeover needs an enemy piece other than the king on a jumped square ({})",
                names.join(" or ")
            ));
        }
        Ok(Move::new(from, to, MoveKind::Takeover))
    }

    fn kidnap_victim(&self, from: Square, to: Square) -> Option<Square> {
        let (f0, r0) = self.fr(from);
        let (f1, r1) = self.fr(to);
        let (sf, sr) = ((f1 - f0).signum(), (r1 - r0).signum());
        match self.rules.kidnap {
            Kidnap::None => return None,
            Kidnap::OneStep if (f1 - f0).abs() > 1 || (r1 - r0).abs() > 1 => return None,
            _ => {}
        }
        let mut met = 0;
        for i in 1..self.files.max(self.ranks) as i32 {
            let s = self.sq(f0 - i * sf, r0 - i * sr)?;
            if self.at(s).is_some() {
                met += 1;
                if met == 2 {
                    return Some(s);
                }
            }
        }
        None
    }

    fn promotion(&self, p: Piece, from: Square, to: Square, promo: Option<char>) -> Result<Option<PieceKind>, String> {
        let last = self.last_rank();
        let wazirs = self.rules.wazir_promotes;
        let promotes = self.fr(to).1 == last
            && self.fr(from).1 != last
            && (p.kind == PieceKind::Pawn || (wazirs && p.kind == PieceKind::Wazir));
        match (promotes, promo) {
            (false, None) => Ok(None),
            (false, Some(_)) if wazirs => Err("only a pawn or wazir reaching the last rank promotes".into()),
            (false, Some(_)) => Err("only a pawn reaching the last rank promotes".into()),
            (true, None) if p.kind == PieceKind::Wazir => {
                Err("a wazir reaching the last rank must promote (add the piece letter, w to stay a wazir)".into())
            }
            (true, None) => Err("a pawn reaching the last rank must promote (add the piece letter)".into()),
            (true, Some(c)) => match PieceKind::from_letter(c).filter(|k| self.rules.promotions.contains(k)) {
                Some(k) => Ok(Some(k)),
                None => {
                    let choices: Vec<String> =
                        self.rules.promotions.iter().map(|k| k.letter().to_ascii_lowercase().to_string()).collect();
                    let what = PieceKind::from_letter(c).map_or_else(|| format!("'{c}'"), kname);
                    Err(format!("cannot promote to {what} in this variant (choose {})", choices.join(", ")))
                }
            },
        }
    }

    fn swap(&self, a: Square, b: Square, promo: Option<char>) -> String {
        let (Some(pa), Some(pb)) = (self.at(a), self.at(b)) else { return GENERIC.into() };
        if pa.kind == pb.kind && matches!(pa.kind, PieceKind::Pawn | PieceKind::Wazir) {
            return format!("two {}s cannot swap", kname(pa.kind));
        }
        if pa.kind == PieceKind::King && self.attacked(b) {
            return format!("the king would be in check on {}", self.name(b));
        }
        if pb.kind == PieceKind::King && self.attacked(a) {
            return format!("the king would be in check on {}", self.name(a));
        }
        if self.pos.is_check() && pa.kind != PieceKind::King && pb.kind != PieceKind::King {
            return "it does not get the king out of check".into();
        }
        let first = self.promotion(pa, a, b, None);
        let second = self.promotion(pb, b, a, None);
        let needs = first.is_err() || second.is_err();
        match (needs, promo) {
            (true, None) => first.and(second).err().unwrap_or_else(|| GENERIC.into()),
            (false, Some(_)) => "only a pawn or wazir reaching the last rank promotes".into(),
            (true, Some(c)) => {
                let mover = if first.is_err() { pa } else { pb };
                let (x, y) = if first.is_err() { (a, b) } else { (b, a) };
                match self.promotion(mover, x, y, Some(c)) {
                    Err(r) => r,
                    Ok(_) => GENERIC.into(),
                }
            }
            (false, None) => GENERIC.into(),
        }
    }

    /// True if the piece on `from` is pinned to its king and `to` leaves the pin line.
    fn pinned(&self, from: Square, to: Square) -> bool {
        let Some(ksq) = self.king(self.pos, self.us) else { return false };
        let (kf, kr) = self.fr(ksq);
        let (f, r) = self.fr(from);
        let (df, dr) = (f - kf, r - kr);
        if (df, dr) == (0, 0) || !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
            return false;
        }
        let (sf, sr) = (df.signum(), dr.signum());
        let diagonal = sf != 0 && sr != 0;
        let mut passed = false;
        let mut line = Vec::new();
        let mut i = 1;
        while let Some(s) = self.sq(kf + i * sf, kr + i * sr) {
            line.push(s);
            if s == from {
                passed = true;
            } else if let Some(q) = self.at(s) {
                if !passed || q.color == self.us {
                    return false;
                }
                let slides = match q.kind {
                    PieceKind::Queen => true,
                    PieceKind::Rook => !diagonal,
                    PieceKind::Bishop => diagonal,
                    _ => false,
                };
                return slides && !line.contains(&to);
            }
            i += 1;
        }
        false
    }

    /// Why `m`, a move of `p` that the movement rules allow, is still illegal:
    /// the king's safety after the whole move.
    fn safety(&self, p: Piece, m: Move) -> String {
        if self.legal.contains(&m) {
            // The text named a legal move in a form that was not accepted.
            return "its suffix does not fit the move".into();
        }
        let after = self.pos.play_unchecked(m);
        let exposed = self.king(&after, self.us).is_none_or(|k| after.is_attacked(k, self.us.flip()));
        if !exposed {
            return self.fallback();
        }
        let victim = (m.kind == MoveKind::Kidnap).then(|| self.kidnap_victim(m.from, m.to)).flatten();
        if p.kind == PieceKind::King && m.kind != MoveKind::Castle {
            return format!("the king would be in check on {}", self.name(m.to));
        }
        if let Some(v) = victim
            && self.at(v) == Some(Piece::new(self.us, PieceKind::King))
        {
            return format!("the king would be in check on {}", self.name(m.from));
        }
        if self.pinned(m.from, m.to) {
            return format!(
                "the {} on {} is pinned (it would leave the king in check)",
                kname(p.kind),
                self.name(m.from)
            );
        }
        if self.pos.is_check() {
            return "it does not get the king out of check".into();
        }
        if let Some(v) = victim
            && let Some(q) = self.at(v)
        {
            return format!("kidnapping the {} on {} would leave the king in check", kname(q.kind), self.name(v));
        }
        "it would leave the king in check".into()
    }
}

#[cfg(test)]
mod tests {
    use crate::{MoveError, fen, parse_move};
    use menagerie_variants::{AnyPosition, VariantId};

    /// A FEN of a `files` x `ranks` board with `pieces` (`"e1K"`) and the
    /// rest of the fields (`"[] w - - 0 1"`, a bracket glued to the board).
    fn board(files: u8, ranks: u8, pieces: &[&str], rest: &str) -> String {
        let mut rows = Vec::new();
        for r in (1..=ranks).rev() {
            let mut row = String::new();
            let mut gap = 0;
            for f in 0..files {
                let name = format!("{}{r}", (b'a' + f) as char);
                match pieces.iter().find(|p| p[..p.len() - 1] == name) {
                    Some(p) => {
                        if gap > 0 {
                            row.push_str(&gap.to_string());
                        }
                        gap = 0;
                        row.push(p.chars().last().unwrap());
                    }
                    None => gap += 1,
                }
            }
            if gap > 0 {
                row.push_str(&gap.to_string());
            }
            rows.push(row);
        }
        let sep = if rest.starts_with('[') { "" } else { " " };
        format!("{}{sep}{rest}", rows.join("/"))
    }

    fn why(variant: VariantId, text: &str, mv: &str) -> String {
        let pos = fen::parse(variant, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        match parse_move(&pos, mv) {
            Err(MoveError::Illegal { reason, .. }) => {
                assert!(!reason.ends_with('.') && reason.chars().next().is_some_and(|c| !c.is_uppercase()), "{reason}");
                reason
            }
            other => panic!("{mv} in {text}: expected Illegal, got {other:?}"),
        }
    }

    fn check(variant: VariantId, text: &str, cases: &[(&str, &str)]) {
        for (mv, want) in cases {
            assert_eq!(why(variant, text, mv), *want, "{mv} in {text}");
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    const CHESS: VariantId = VariantId::Chess;
    const CR: VariantId = VariantId::CamelRhino;

    #[test]
    fn game_over() {
        let mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert_eq!(why(CHESS, mate, "e2e4"), "the game is over (checkmate, Black wins)");
        assert_eq!(why(CHESS, mate, "Nf3"), "the game is over (checkmate, Black wins)");
        // Camel and Rhino Chess: White has no Camel and no Rhino.
        let over = board(10, 10, &["a1K", "j10k", "j9c"], "w - - 0 1");
        assert!(why(CR, &over, "a1a2").starts_with("the game is over (White has no Camel"));
    }

    #[test]
    fn origin_square() {
        let start = format!("{START} w KQkq - 0 1");
        check(
            CHESS,
            &start,
            &[
                ("e3e4", "there is no piece on e3"),
                ("e7e5", "the pawn on e7 belongs to Black, but White is to move"),
                ("g8f6", "the knight on g8 belongs to Black, but White is to move"),
                ("Ae4", "you have no alpaca"),
                ("Nbd2", "d2 holds your own pawn"),
                ("Ncd2", "you have no knight on the c-file"),
            ],
        );
    }

    #[test]
    fn movement_blocking_and_own_pieces() {
        let start = format!("{START} w KQkq - 0 1");
        check(
            CHESS,
            &start,
            &[
                ("g1g3", "a knight on g1 cannot move to g3"),
                ("Nf6", "no knight of yours can move to f6"),
                ("a1a3", "the path from a1 to a3 is blocked at a2"),
                ("Ra3", "the path from a1 to a3 is blocked at a2"),
                ("Bb5", "the path from f1 to b5 is blocked at e2"),
                ("d1d2", "d2 holds your own pawn"),
                ("Ke2", "e2 holds your own pawn"),
                ("e8=Q", "a pawn on e2 cannot move to e8"),
                ("e2e5", "a pawn on e2 cannot move to e5"),
                ("e2d3", "a pawn moves diagonally only to capture (d3 is empty)"),
                ("exd3", "a pawn moves diagonally only to capture (d3 is empty)"),
                ("e2e4q", "only a pawn reaching the last rank promotes"),
                ("e4=Q", "only a pawn reaching the last rank promotes"),
            ],
        );
        let pawns = "4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1";
        check(
            CHESS,
            pawns,
            &[
                ("e4e5", "a pawn captures only diagonally (e5 is occupied)"),
                ("e4e6", "a pawn can advance two squares only from its starting rank"),
            ],
        );
        let blocked = "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1";
        check(CHESS, blocked, &[("e2e4", "the path from e2 to e4 is blocked at e3")]);
        let rook = "4k3/8/8/8/8/4p3/8/4R1K1 w - - 0 1";
        check(CHESS, rook, &[("e1e5", "the path from e1 to e5 is blocked at e3")]);
    }

    #[test]
    fn king_safety() {
        let pin = "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1";
        check(CHESS, pin, &[("e2c3", "the knight on e2 is pinned (it would leave the king in check)")]);
        let pinned_bishop = "4k3/8/8/b7/8/8/3B4/4K3 w - - 0 1";
        check(CHESS, pinned_bishop, &[("Be3", "the bishop on d2 is pinned (it would leave the king in check)")]);
        let attacked = "4k3/3r4/8/8/8/8/8/4K3 w - - 0 1";
        check(
            CHESS,
            attacked,
            &[("e1d1", "the king would be in check on d1"), ("Kd2", "the king would be in check on d2")],
        );
        let check_ = "4k3/4r3/8/8/8/8/8/R3K3 w - - 0 1";
        check(
            CHESS,
            check_,
            &[("a1a2", "it does not get the king out of check"), ("Ra8", "it does not get the king out of check")],
        );
        // En passant would open the rank to the rook.
        let ep = "8/8/8/K2Pp2r/8/8/8/4k3 w - e6 0 1";
        check(CHESS, ep, &[("d5e6", "it would leave the king in check")]);
    }

    #[test]
    fn castling() {
        check(
            CHESS,
            "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1",
            &[
                ("e1g1", "castling rights are gone"),
                ("O-O", "castling rights are gone"),
                ("O-O-O", "castling rights are gone"),
            ],
        );
        check(
            CHESS,
            "4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1",
            &[("O-O", "the king is in check"), ("e1c1", "the king is in check")],
        );
        check(
            CHESS,
            &format!("{START} w KQkq - 0 1"),
            &[
                ("O-O", "squares between king and rook are occupied"),
                ("0-0-0", "squares between king and rook are occupied"),
            ],
        );
        check(
            CHESS,
            "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1",
            &[("O-O", "the king would pass through an attacked square f1")],
        );
        check(
            CHESS,
            "4k3/8/8/8/8/8/3r4/R3K2R w KQ - 0 1",
            &[("e1c1", "the king would pass through an attacked square d1")],
        );
        check(CHESS, "4k3/8/8/8/8/8/6r1/R3K2R w KQ - 0 1", &[("e1g1", "the king would be in check on g1")]);
        check(
            CHESS,
            "r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1",
            &[("e1g1", "the king on e1 belongs to White, but Black is to move")],
        );
    }

    #[test]
    fn promotion_and_en_passant() {
        let promo = "8/4P3/8/8/8/8/8/k3K3 w - - 0 1";
        check(
            CHESS,
            promo,
            &[
                ("e7e8", "a pawn reaching the last rank must promote (add the piece letter)"),
                ("e8", "a pawn reaching the last rank must promote (add the piece letter)"),
                ("e7e8k", "cannot promote to king in this variant (choose q, r, b, n)"),
                ("e8=A", "cannot promote to alpaca in this variant (choose q, r, b, n)"),
            ],
        );
        let alpaca = "8/4P3/8/8/8/8/8/k3K3[] w - - 0 1";
        check(VariantId::Alpaca, alpaca, &[("e7e8a", "cannot promote to alpaca in this variant (choose q, r, b, n)")]);
        let no_ep = "4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1";
        check(
            CHESS,
            no_ep,
            &[("e5d6", "en passant is not available (the pawn on d5 did not just advance two squares)")],
        );
        check(
            CHESS,
            no_ep,
            &[("exd6", "en passant is not available (the pawn on d5 did not just advance two squares)")],
        );
    }

    #[test]
    fn no_prelude_in_chess() {
        let start = format!("{START} w KQkq - 0 1");
        check(
            CHESS,
            &start,
            &[
                ("accept", "there is no prelude in chess"),
                ("decline", "there is no prelude in chess"),
                ("0000", "passing (0000) is not a move"),
                ("A@g", "there are no reserve pieces in chess"),
            ],
        );
    }

    #[test]
    fn alpaca_prelude_and_gating() {
        let a = VariantId::Alpaca;
        check(
            a,
            &format!("{START}[Aa?] w KQkq - 0 1"),
            &[
                ("e2e4", "during the prelude only accept or decline is legal"),
                ("Nf3", "during the prelude only accept or decline is legal"),
                ("O-O", "during the prelude only accept or decline is legal"),
                ("A@g", "the reserve pieces must be accepted or declined first"),
                ("K@e8", "accept is written K@e1 (your king's square)"),
            ],
        );
        let placing = format!("{START}[Aa] w KQkq - 0 1");
        check(
            a,
            &placing,
            &[
                ("accept", "the reserve pieces are already accepted: place the alpaca (A@<file>)"),
                ("e2e4", "during the prelude only placing the alpaca is legal (A@<file>)"),
                ("S@g", "the reserve piece is the alpaca (A)"),
                ("A@bg", "name exactly one gate file (A@g)"),
                ("A@g3", "a reserve piece enters on its gate file's home square (rank 1)"),
            ],
        );
        let no_knight = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R[Aa] w KQkq - 0 1";
        check(a, no_knight, &[("A@g", "the gate file g needs one of your pieces on g1")]);
        let two = format!("{START}[AAaa] w KQkq - 0 1");
        check(
            VariantId::Alpaca2,
            &two,
            &[
                (
                    "A@ae",
                    "the king's file and a rook's file cannot both be gates (two pieces would enter at one castling)",
                ),
                (
                    "A@eh",
                    "the king's file and a rook's file cannot both be gates (two pieces would enter at one castling)",
                ),
                ("A@gg", "the two gate files must differ"),
                ("A@gb", "write the gate files in alphabetical order (A@bg)"),
                ("A@g", "name exactly two gate files (A@bg)"),
            ],
        );
        check(
            VariantId::AlpacaSameFile,
            &format!("{START}[A@ga] b KQkq - 0 1"),
            &[("A@f", "in alpaca-samefile Black must choose White's gate file (g)")],
        );
        // After the prelude.
        let after = "4k3/8/8/8/4p3/8/4A3/4K3[] w - - 0 1";
        check(
            a,
            after,
            &[
                ("accept", "the prelude is over"),
                ("A@g", "the prelude is over"),
                ("e2e4", "an alpaca's two-square leap cannot capture (e4 is occupied)"),
                ("e2f3", "an alpaca on e2 cannot move to f3"),
            ],
        );
    }

    #[test]
    fn alseid() {
        let s = VariantId::Alseid;
        check(
            s,
            &format!("{START}[Ss?] w KQkq - 0 1"),
            &[("e2e4", "during the prelude only accept or decline is legal")],
        );
        check(s, &format!("{START}[Ss] w KQkq - 0 1"), &[("A@d", "the reserve piece is the alseid (S)")]);
        let on_gate = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBSKBNR[Ss] w KQkq - 0 1";
        check(s, on_gate, &[("S@d", "the gate file d needs one of your pieces other than an alseid on d1")]);
        let capture = "4k3/8/8/4p3/8/8/4S3/4K3[] w - - 0 1";
        check(
            s,
            capture,
            &[
                ("e2e5", "an alseid never captures (e5 is occupied)"),
                ("e2e7", "the path from e2 to e7 is blocked at e5"),
            ],
        );
        // The kidnapped knight shielded the king from the rook.
        let shield = "4k3/8/8/8/3S4/3P4/K2N3r/8[] w - - 0 1";
        check(
            s,
            shield,
            &[
                ("d4d6", "kidnapping the knight on d2 would leave the king in check"),
                ("Sd6", "kidnapping the knight on d2 would leave the king in check"),
            ],
        );
        check(VariantId::AlseidWeak, shield, &[("d4d5", "kidnapping the knight on d2 would leave the king in check")]);
        // The kidnapped king lands on an attacked square.
        let king = "7k/8/8/8/r2S4/3P4/3K4/8[] w - - 0 1";
        check(s, king, &[("d4d6", "the king would be in check on d4")]);
    }

    #[test]
    fn camel_rhino() {
        let mut pieces = vec!["a1K", "c1C", "j10k", "h10c"];
        let start = VariantId::CamelRhino.start_fen();
        check(
            CR,
            start,
            &[
                ("O-O", "there is no castling in camel-rhino"),
                ("a3b3", "two pawns cannot swap"),
                ("e4f4", "two wazirs cannot swap"),
                ("a1a3", "a3 holds your own pawn (only adjacent pieces swap)"),
                ("a3a6", "a pawn on a3 cannot move to a6"),
                ("accept", "there is no prelude in camel-rhino"),
            ],
        );
        // Takeover leaps.
        pieces.extend(["d2C", "h2N", "h3p"]);
        let leaps = board(10, 10, &pieces, "w - - 0 1");
        check(
            CR,
            &leaps,
            &[
                ("d2e5t", "a takeover needs an enemy piece other than the king on a jumped square (d3 or d4)"),
                ("d2e5c", "a takeover needs an enemy piece other than the king on a jumped square (d3 or d4)"),
                ("h2g4t", "a knight's takeover needs a friendly camel or rhino next to it"),
                ("d2d3t", "a camel on d2 has no takeover leap to d3"),
            ],
        );
        let king_jumped = board(10, 10, &["a1K", "d2C", "d4k", "j10c"], "w - - 0 1");
        check(CR, &king_jumped, &[("d2e5t", "a takeover cannot convert the king")]);
        // Jump takeovers.
        let far = board(10, 10, &["a1K", "c1C", "a5R", "a7n", "j10k", "j9c"], "w - - 0 1");
        check(CR, &far, &[("a5a8", "a takeover jump needs a friendly camel or rhino next to the rook")]);
        let defended = board(10, 10, &["a1K", "b4C", "a5R", "a7n", "j8r", "j10k", "j9c"], "w - - 0 1");
        check(CR, &defended, &[("a5a8", "the landing square a8 is defended")]);
        let king = board(10, 10, &["e1K", "d2C", "e2p", "g3n", "a10k", "j10c"], "w - - 0 1");
        check(CR, &king, &[("e1e3", "the king can only take over an undefended piece (e2 is defended)")]);
        // Swaps.
        let swap = board(10, 10, &["e1K", "f1R", "f10r", "c1C", "a10k", "j9c"], "w - - 0 1");
        check(CR, &swap, &[("e1f1", "the king would be in check on f1"), ("f1e1", "the king would be in check on f1")]);
        let in_check = board(10, 10, &["e1K", "b2R", "c2B", "c1C", "e10r", "a10k", "j9c"], "w - - 0 1");
        check(CR, &in_check, &[("b2c2", "it does not get the king out of check")]);
        // Promotion of pawns and wazirs.
        let promo = board(10, 10, &["a1K", "c1C", "e9W", "g9P", "a10k", "j8c"], "w - - 0 1");
        check(
            CR,
            &promo,
            &[
                ("e9e10", "a wazir reaching the last rank must promote (add the piece letter, w to stay a wazir)"),
                ("g9g10", "a pawn reaching the last rank must promote (add the piece letter)"),
                ("g9g10k", "cannot promote to king in this variant (choose q, r, b, n, z, c, h, w)"),
            ],
        );
    }

    /// Every coordinate move of every own piece in random games of every
    /// variant that is not legal gets a reason, and (almost always) a
    /// specific one; no explanation panics.
    #[test]
    fn random_positions_sweep() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut generic = Vec::new();
        let mut total = 0;
        for &v in VariantId::ALL.iter() {
            let mut pos = AnyPosition::start(v);
            for ply in 0..60 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                if ply % 12 == 11 {
                    let (files, ranks) = v.size();
                    let n = files as u16 * ranks as u16;
                    for from in (0..n).map(|i| menagerie_geometry::Square(i as u8)) {
                        if pos.piece_at(from).is_none_or(|p| p.color != pos.side_to_move()) {
                            continue;
                        }
                        for to in (0..n).map(|i| menagerie_geometry::Square(i as u8)) {
                            let t = format!("{}{}", fen::square_name(from, files), fen::square_name(to, files));
                            if let Err(MoveError::Illegal { reason, .. }) = parse_move(&pos, &t) {
                                total += 1;
                                if reason == super::GENERIC {
                                    generic.push(format!("{t} in {}", fen::format(&pos)));
                                }
                            }
                        }
                    }
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pos = pos.play_unchecked(legal[(state % legal.len() as u64) as usize]);
            }
        }
        assert!(total > 1000, "{total}");
        assert!(
            generic.len() * 100 <= total,
            "{} of {total} generic: {:?}",
            generic.len(),
            &generic[..generic.len().min(10)]
        );
    }

    /// Hostile input never panics and always gets some reason.
    #[test]
    fn hostile_text() {
        let long = "e2e4".repeat(250_000);
        for v in [CHESS, VariantId::Alpaca, VariantId::Alseid, CR] {
            let pos = AnyPosition::start(v);
            for t in [
                long.as_str(),
                "é2é4",
                "e2e\u{301}4",
                "Kx\u{1F600}",
                "A@",
                "@",
                "<>",
                "a<>",
                "K@",
                "=",
                "(=",
                "x",
                "a99a1",
                "Pxd5(=c4)",
                "Sd4-d6(Nd1-d4)",
                "Qe2<>Kf2=Q",
            ] {
                let _ = parse_move(&pos, t);
                let _ = super::explain(&pos, t);
            }
        }
    }
}
