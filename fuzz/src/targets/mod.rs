//! The fuzz targets. Each checks its invariants with panics (the
//! libFuzzer convention): an input is a finding if the target panics —
//! on the calling thread or any other — or does not return in time.

pub mod epd;
pub mod fen;
pub mod grpc;
pub mod moves;

use crate::mutate::Mutator;
use crate::rng::{Rng, fnv1a};
use menagerie_notation::fen as fen_text;
use menagerie_variants::{AnyPosition, VariantId};

/// A target's own mutator: `(input, rng, generic mutator, corpus)`.
pub type CustomMutator = fn(&mut Vec<u8>, &mut Rng, &Mutator, &[Vec<u8>]);

/// A fuzz target as the driver sees it.
#[derive(Clone, Copy)]
pub struct Target {
    /// Name on the command line and corpus/artifact directory name.
    pub name: &'static str,
    /// One input; `true` if it got past parsing (kept as a mutation base).
    pub run: fn(&[u8]) -> bool,
    /// Syntax tokens for the mutator.
    pub dictionary: &'static [&'static str],
    /// Extra structure-aware mutation, used for part of the inputs.
    pub mutate: Option<CustomMutator>,
    /// Built-in seed inputs, `(file name, content)`, for `--write-seeds`.
    pub seeds: fn() -> Vec<(String, Vec<u8>)>,
}

/// Every target, in the order `menagerie-fuzz all` runs them.
pub const TARGETS: &[Target] = &[
    Target { name: "fen", run: fen::run, dictionary: FEN_TOKENS, mutate: None, seeds: fen::seeds },
    Target { name: "moves", run: moves::run, dictionary: MOVE_TOKENS, mutate: None, seeds: moves::seeds },
    Target { name: "epd", run: epd::run, dictionary: EPD_TOKENS, mutate: None, seeds: epd::seeds },
    Target { name: "grpc", run: grpc::run, dictionary: MOVE_TOKENS, mutate: Some(grpc::mutate), seeds: grpc::seeds },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().copied().find(|t| t.name == name)
}

/// FEN syntax: pieces of every variant, board runs, reserve brackets, fields.
pub const FEN_TOKENS: &[&str] = &[
    "K",
    "Q",
    "R",
    "B",
    "N",
    "P",
    "A",
    "S",
    "C",
    "H",
    "Z",
    "W",
    "k",
    "q",
    "r",
    "b",
    "n",
    "p",
    "a",
    "s",
    "c",
    "h",
    "z",
    "w",
    "/",
    "8",
    "10",
    "9",
    "1",
    "2",
    "7",
    "11",
    "0",
    "[",
    "]",
    "[Aa?]",
    "[Aa]",
    "[AAaa?]",
    "[A@ga@f]",
    "[A@bgA@ca@b]",
    "[Ss?]",
    "[Ss]",
    "[S@fs@f]",
    "[]",
    "[?]",
    "A@",
    "@g",
    "@",
    "?",
    " w ",
    " b ",
    " - ",
    " KQkq ",
    "KQkq",
    "Kk",
    "Qq",
    " e3 ",
    " e6 ",
    " j9 ",
    " a10 ",
    " 0 1",
    " 99 1",
    " 0 0",
    "pppppppp",
    "PPPPPPPP",
    "rnbqkbnr",
    "RNBQKBNR",
    "r8r/1hzbqkbnc1",
    "4ww4",
    "4WW4",
    "PPPP2PPPP",
    " ",
    "  ",
    "\t",
    "\n",
];

/// Move syntax: coordinates, promotions, takeovers, prelude, SAN forms.
pub const MOVE_TOKENS: &[&str] = &[
    "e2e4",
    "e7e5",
    "g1f3",
    "e1g1",
    "e8c8",
    "e7e8q",
    "e7e8s",
    "a7a8n",
    "e9e10w",
    "e9e10q",
    "h2g4t",
    "h2g4",
    "e2f2",
    "accept",
    "decline",
    "A@g",
    "A@bg",
    "A@",
    "S@d",
    "@",
    "Nf3",
    "Nxg4(=h3)",
    "Cxf8(=e6)(=e7)",
    "Qxe5(=e4)",
    "Pxd5(=c4)",
    "Qe2<>Kf2",
    "Pb9<>Rb10=Q",
    "Sd4-d6(Nd1-d4)",
    "Sd6",
    "Nf3(A@g1)",
    "O-O",
    "O-O-O",
    "0-0",
    "0-0-0",
    "exd5",
    "e8=Q",
    "e8Q",
    "Raxd1+",
    "Qh7#",
    "!",
    "?",
    "!!",
    "+",
    "#",
    "x",
    "=",
    "(",
    ")",
    "<>",
    "-",
    "a",
    "j",
    "k",
    "z",
    "1",
    "10",
    "11",
    "0",
    "\n",
    " ",
    "\nchess\n",
    "\nalpaca\n",
    "\ncamel-rhino\n",
];

/// EPD syntax: opcodes, variants, counts.
pub const EPD_TOKENS: &[&str] = &[
    ";",
    " ;",
    ";D1 20",
    ";D2 400",
    " ;D3 8902",
    ";d1 1",
    ";D0 1",
    ";D ",
    ";D99 1",
    ";variant ",
    ";variant chess",
    ";variant alpaca",
    ";variant alpaca2",
    ";variant alpaca-samefile",
    ";variant alseid",
    ";variant alseid-weak",
    ";variant camel-rhino",
    ";variant camel-rhino-plain",
    ";VARIANT Chess",
    ";id x",
    "#",
    "\n",
    "\r\n",
    " ",
    "\t",
    "D1",
    "variant",
    "/",
    "8",
    "10",
    "[Aa?]",
    "[Ss?]",
    " w ",
    " b ",
    " KQkq ",
    " - ",
    " 0 1",
];

/// The variant a selector names: by name, else chosen by its hash.
pub fn variant_of(selector: &str) -> VariantId {
    VariantId::from_name_including_tests(selector.trim()).unwrap_or_else(|| {
        let all = VariantId::EVERY;
        all[(fnv1a(selector.as_bytes()) % all.len() as u64) as usize]
    })
}

/// FEN round trip and hash: `format` → `parse` gives the same position and
/// string, and the incremental Zobrist key equals the key computed from
/// scratch, here and after every legal move.
pub fn check_position(pos: &AnyPosition) {
    let v = pos.variant();
    let text = fen_text::format(pos);
    let back = match fen_text::parse(v, &text) {
        Ok(p) => p,
        Err(e) => panic!("{v}: formatted FEN {text:?} does not parse back: {e}"),
    };
    assert_eq!(fen_text::format(&back), text, "{v}: FEN round trip changes the string");
    assert!(back == *pos, "{v}: FEN {text:?} parses back to a different position");
    assert_eq!(pos.hash(), pos.compute_hash(), "{v}: hash differs from the from-scratch hash in {text:?}");
    let legal = pos.legal_moves();
    assert_eq!(legal.len() as u64, pos.count_legal(), "{v}: count_legal != legal_moves().len() in {text:?}");
    for &m in legal.iter() {
        let after = pos.play_unchecked(m);
        assert_eq!(
            after.hash(),
            after.compute_hash(),
            "{v}: incremental hash wrong after {:?} from {text:?}",
            menagerie_notation::uci::format(v, m)
        );
    }
    let _ = pos.outcome();
}
