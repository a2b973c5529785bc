//! Loading variant definitions: the built-in set, custom variants, and errors.

mod common;

use menagerie_rules::{CountingRule, DefinitionError, Definitions, GameValue, LoadOptions, Position};

const CUSTOM: &str = "
# A small test variant with every kind of movement
[testfairy]
maxRank = 7
maxFile = g
pawn = p
king = k
customPiece1 = h:nN
customPiece2 = c:mRcpR
customPiece3 = g:gQ
customPiece4 = r:R2
customPiece5 = a:fsWbF
customPiece6 = e:nA
startFen = rhcgkea/ppppppp/7/7/7/PPPPPPP/RHCGKEA w - - 0 1
promotionRegionWhite = *7
promotionRegionBlack = *1
promotionPieceTypes = hcgrae
doubleStepRegionWhite = *2
doubleStepRegionBlack = *6
castling = false
";

#[test]
fn builtin_variants() {
    let defs = Definitions::builtin();
    // Every embedded definition compiles (they are compiled on first use),
    // and its start position reads back from its FEN.
    let names: Vec<&str> = defs.names().collect();
    assert!(names.len() >= 100, "{names:?}");
    for name in names {
        let def = defs.get(name).unwrap_or_else(|| panic!("{name} does not compile"));
        let pos = Position::start(def);
        assert_eq!(Position::from_fen(def, &def.start_fen).unwrap(), pos, "{name}");
    }
    // The FENs of these start positions are written as defined.
    for name in "chess makruk shatranj amazon nightrider grasshopper knightmate capablanca embassy janus chancellor \
        courier shako"
        .split_whitespace()
    {
        let def = defs.get(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(Position::start(def).fen(), def.start_fen, "{name}");
    }
    // Pieces in hand are written in Fairy-Stockfish's order.
    let seirawan = Position::start(defs.get("seirawan").unwrap());
    assert_eq!(seirawan.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1");
    let shako = defs.get("shako").unwrap();
    assert_eq!((shako.files, shako.ranks), (10, 10));
    let courier = defs.get("courier").unwrap();
    assert_eq!((courier.files, courier.ranks), (12, 8));
    assert_eq!(Position::start(defs.get("chess").unwrap()).perft(3), 8902);
}

#[test]
fn game_end_keys_are_typed() {
    let defs = Definitions::builtin();
    let shatranj = &defs.get("shatranj").unwrap().game_end;
    assert_eq!(shatranj.extinction_value, GameValue::Loss);
    assert_eq!(shatranj.stalemate_value, GameValue::Loss);
    assert_eq!(shatranj.n_move_rule, 70);
    assert!(shatranj.extinction_claim);
    assert_eq!(shatranj.extinction_piece_types, "*");
    assert_eq!((shatranj.extinction_piece_count, shatranj.extinction_opponent_piece_count), (1, 2));
    let makruk = &defs.get("makruk").unwrap().game_end;
    assert_eq!(makruk.counting_rule, CountingRule::Makruk);
    assert_eq!(makruk.n_move_rule, 0);
    let chess = &defs.get("chess").unwrap().game_end;
    assert_eq!(chess.checkmate_value, GameValue::Loss);
    assert_eq!(chess.stalemate_value, GameValue::Draw);
    assert_eq!(chess.extinction_value, GameValue::None);
    assert_eq!(chess.n_fold_rule, 3);
}

#[test]
fn bare_king_in_shatranj_ends_the_game() {
    let defs = Definitions::builtin();
    let def = defs.get("shatranj").unwrap();
    // Black has a bare king and White two pieces: Black may still move (claim) ...
    let pos = Position::from_fen(def, "8/8/4k3/8/8/8/3R4/4K3 b - - 0 1").unwrap();
    assert!(!pos.legal_moves().is_empty());
    // ... but not against three.
    let pos = Position::from_fen(def, "8/8/4k3/8/8/8/3RR3/4K3 b - - 0 1").unwrap();
    assert!(pos.legal_moves().is_empty());
    // The side that bared the king has won: no moves after it.
    let pos = Position::from_fen(def, "8/8/4k3/8/8/8/3R4/4K3 w - - 0 1").unwrap();
    assert!(pos.legal_moves().is_empty());
}

#[test]
fn custom_variant_matches_fairy_stockfish() {
    // Counts from Fairy-Stockfish (pyffish) with the same definition.
    let mut defs = Definitions::empty();
    let added = defs.load(CUSTOM, "custom.ini").unwrap();
    assert_eq!(added, vec!["testfairy".to_string()]);
    let def = defs.get("testfairy").unwrap();
    let pos = Position::start(def);
    assert_eq!([pos.perft(1), pos.perft(2), pos.perft(3)], [18, 315, 5596]);
    let pos = Position::from_fen(def, "r1cGkea/p1Cp2p/hp5/PP5/5P1/2PPPp1/RH1K1EA w - - 2 8").unwrap();
    assert_eq!([pos.perft(1), pos.perft(2), pos.perft(3)], [24, 400, 8816]);
}

#[test]
fn child_of_builtin() {
    let mut defs = Definitions::builtin();
    let added = defs
        .load(
            "[rookend:chess]\n; no castling\ncastling = false\nstartFen = 4k3/8/8/8/8/8/8/R3K2R w - - 0 1\n",
            "rookend.ini",
        )
        .unwrap();
    assert_eq!(added, vec!["rookend"]);
    let pos = Position::start(defs.get("rookend").unwrap());
    assert_eq!(pos.legal_moves().len(), 24);
    assert!(defs.names().any(|n| n == "rookend"));
}

fn load_err(text: &str) -> DefinitionError {
    let mut defs = Definitions::builtin();
    let err = defs.load(text, "bad.ini").expect_err("load must fail");
    // Nothing was added.
    assert!(defs.get("x").is_none());
    err
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let err = load_err("[x:chess]\n# comment\nmaxRank = 8\nfancyRule = true\n");
    assert!(matches!(&err, DefinitionError::UnknownKey { line: 4, key, .. } if key == "fancyRule"), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("bad.ini:4") && msg.contains("fancyRule"), "{msg}");
}

#[test]
fn unsupported_rule_is_an_error() {
    let err = load_err("[x:chess]\ncustomPiece25 = a:W\n");
    assert!(err.to_string().contains("bad.ini:2") && err.to_string().contains("customPiece25"), "{err}");
    // The chasing rule is played, on and off; other values are errors.
    let mut defs = Definitions::builtin();
    defs.load("[x:chess]\nchasingRule = none\n", "ok.ini").unwrap();
    defs.load("[y:chess]\nchasingRule = axf\n", "ok.ini").unwrap();
    assert!(defs.get("y").is_some_and(|d| d.game_end.chasing_rule));
    let err = load_err("[x:chess]\nchasingRule = always\n");
    assert!(err.to_string().contains("expected none or axf"), "{err}");
}

#[test]
fn invalid_values() {
    for (text, line, key) in [
        ("[x:chess]\nmaxRank = 11\n", 2, "maxRank"),
        ("[x:chess]\nmaxFile = z\n", 2, "maxFile"),
        ("[x:chess]\n\ncastling = maybe\n", 3, "castling"),
        ("[x:chess]\npromotionPieceTypes = qz\n", 2, "promotionPieceTypes"),
        ("[x:chess]\nstalemateValue = lose\n", 2, "stalemateValue"),
        ("[x:chess]\npromotionRegionWhite = *11\n", 2, "promotionRegionWhite"),
        ("[x:chess]\ncountingRule = thai\n", 2, "countingRule"),
        ("[x:chess]\nnMoveRule = -3\n", 2, "nMoveRule"),
        ("[x:chess]\ncustomPiece1 = a\n", 2, "customPiece1"),
        ("[x:chess]\nknight = n:N\n", 2, "knight"),
    ] {
        let err = load_err(text);
        let msg = err.to_string();
        assert!(
            matches!(&err, DefinitionError::InvalidValue { line: l, key: k, .. } if *l == line && k == key),
            "{text:?}: {err:?}"
        );
        assert!(msg.contains(&format!("bad.ini:{line}")) && msg.contains(key), "{msg}");
    }
}

#[test]
fn bad_betza() {
    let err = load_err("[x:chess]\ncustomPiece1 = a:NX\n");
    assert!(matches!(&err, DefinitionError::Betza { line: 2, key, .. } if key == "customPiece1"), "{err:?}");
    assert!(err.to_string().contains("'X'"), "{err}");
}

#[test]
fn structural_errors() {
    assert!(matches!(load_err("[x:nosuch]\n"), DefinitionError::UnknownParent { line: 1, .. }));
    assert!(matches!(load_err("[chess]\n"), DefinitionError::Duplicate { line: 1, .. }));
    assert!(matches!(load_err("[x:chess]\njust words\n"), DefinitionError::Syntax { line: 2, .. }));
    assert!(matches!(load_err("maxRank = 8\n"), DefinitionError::Syntax { line: 1, .. }));
    assert!(matches!(load_err("[x:chess\n"), DefinitionError::Syntax { line: 1, .. }));
    let err = load_err("[ok:chess]\n[x:chess]\nstartFen = rnbqkbnr/8 w - - 0 1\n");
    assert!(matches!(&err, DefinitionError::Invalid { line: 2, name, .. } if name == "x"), "{err:?}");
}

#[test]
fn piece_letters_replace_and_remove() {
    let mut defs = Definitions::builtin();
    // A new piece with the knight's letter replaces the knight.
    defs.load("[x:chess]\ncustomPiece1 = n:NN\n", "x.ini").unwrap();
    let nightrider = Position::start(defs.get("nightrider").unwrap());
    let x = Position::start(defs.get("x").unwrap());
    assert_eq!(x.perft(3), nightrider.perft(3));
    // A removed piece's letter is no longer valid in FEN.
    defs.load("[y:chess]\nqueen = -\nstartFen = 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n", "y.ini").unwrap();
    assert!(Position::from_fen(defs.get("y").unwrap(), "4k3/8/8/8/8/8/8/3QK3 w - - 0 1").is_err());
}

#[test]
fn odd_betza_combinations_behave_as_in_fairy_stockfish() {
    // Counts from Fairy-Stockfish (pyffish). These pieces exercise its
    // movement model: a later atom replaces an earlier one in the same
    // direction (quirkb, quirkd), rider families reach wherever the piece's
    // atoms reach on an empty board (quirka, quirke), and riders of other
    // atoms than W, F and N do not move (quirkc).
    let cases = [
        ("quirka", "bhpQmsAhlWW", 477, "aaak1aa/ppp1ppp/2a4/3p3/2P1PPA/PP1P2P/AAAK1AA w - - 3 5", 633),
        ("quirkb", "hrWvvAfsnA", 189, "a1akaaa/p2pp1p/1p1a1p1/2p4/2P2P1/PPKPP1P/AA1AAAA w - - 0 5", 256),
        ("quirkc", "mWWrvDD", 189, "aa1kaaa/pp3pp/2app2/2p4/2P2P1/PPKPP1P/AA1AAAA w - - 0 5", 301),
        ("quirkd", "KchrnNvvnA", 189, "aa1kaaa/pp2ppp/1a5/2pp3/2PPAP1/PP2P1P/AA1KAAA w - - 3 5", 613),
        ("quirke", "cfpBlbWW", 309, "aaakaa1/pp2ppp/2pp3/1P5/4P2/P1PPKPP/1aAA1AA w - - 0 5", 365),
    ];
    for (name, betza, start_d2, fen, fen_d2) in cases {
        let ini = format!(
            "[{name}:chess]\nmaxFile = g\nmaxRank = 7\nknight = -\nbishop = -\nrook = -\nqueen = -\n\
             customPiece1 = a:{betza}\npromotionPieceTypes = a\ncastling = false\n\
             doubleStepRegionWhite = *2\ndoubleStepRegionBlack = *6\npromotionRegionWhite = *7\n\
             promotionRegionBlack = *1\nstartFen = aaakaaa/ppppppp/7/7/7/PPPPPPP/AAAKAAA w - - 0 1\n"
        );
        let mut defs = Definitions::builtin();
        defs.load(&ini, "quirks.ini").unwrap();
        let def = defs.get(name).unwrap();
        assert_eq!(Position::start(def).perft(2), start_d2, "{name} start");
        assert_eq!(Position::from_fen(def, fen).unwrap().perft(2), fen_d2, "{name} {fen}");
    }
}

#[test]
fn castling_that_does_not_fit_the_board_is_off() {
    // Fairy-Stockfish accepts these sections (castling is on by default,
    // whatever the board): Menagerie loads them without castling, and
    // castling rights in their FENs are ignored.
    for text in [
        "[x:chess]\ncastlingRank = 9\n",
        "[x:chess]\ncastlingKingsideFile = a\n",
        "[x:chess]\ncastlingQueensideFile = h\n",
        "[x:chess]\nmaxFile = e\nmaxRank = 5\nstartFen = r1k1r/ppppp/5/PPPPP/R1K1R w KQkq - 0 1\n",
    ] {
        let mut defs = Definitions::builtin();
        defs.load(text, "x.ini").unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let x = defs.get("x").expect("loaded");
        assert!(x.castling_squares().is_none(), "{text:?}");
        let pos = Position::start(x);
        assert!(pos.fen().contains(" w - - 0 1"), "{text:?}: {}", pos.fen());
    }
}

#[test]
fn castling_squares_say_where_a_variant_castles() {
    use menagerie_rules::CastlingSquares;
    let defs = Definitions::builtin();
    let squares = |name: &str| defs.get(name).expect("built in").castling_squares();
    assert_eq!(squares("chess"), Some(CastlingSquares { rank: 0, king_to: [6, 2], rook_from: [7, 0] }));
    assert_eq!(squares("capablanca"), Some(CastlingSquares { rank: 0, king_to: [8, 2], rook_from: [9, 0] }));
    // Shako castles on the second rank with the rooks of the b- and i-files.
    assert_eq!(squares("shako"), Some(CastlingSquares { rank: 1, king_to: [7, 3], rook_from: [8, 1] }));
    for none in ["makruk", "courier", "shatranj", "seirawan960"] {
        assert_eq!(squares(none), None, "{none}");
    }
}

#[test]
fn takeover_and_swap_keys_are_checked() {
    for (text, why) in [
        ("[x:chess]\nleapTakeovers = n\n", "orthogonal or diagonal"),
        ("[x:chess]\nleapTakeovers = n:sideways\n", "orthogonal or diagonal"),
        ("[x:chess]\nleapTakeovers = y:diagonal\n", "no piece with letter 'y'"),
        ("[x:chess]\nswapExcept = wwp\n", "two piece letters"),
    ] {
        let err = load_err(text);
        assert!(matches!(&err, DefinitionError::InvalidValue { line: 2, .. }), "{text:?}: {err:?}");
        assert!(err.to_string().contains(why), "{text:?}: {err}");
    }
    for (text, why) in [
        ("[x:chess]\nenabledLeapTakeovers = n:orthogonal\n", "need takeoverEnablers"),
        ("[x:chess]\nenabledJumpTakeovers = n\ntakeoverEnablers = b\ncustomPiece1 = n:nN\n", "steps and slides"),
        ("[x:chess]\nleapTakeovers = p:orthogonal\n", "never promote"),
        ("[x:chess]\nswapExcept = pp\n", "swapExcept needs swaps"),
        ("[x:chess]\npromotingPieces = k\n", "neither the pawn nor the king"),
        (
            "[x:chess]\nswaps = true\ncustomPiece1 = a:W\npioneerGating = true\nstartFen = 4k3/8/8/8/8/8/8/4K3[Aa?] w - - 0 1\n",
            "cannot be combined",
        ),
        ("[x:chess]\nextinctionTogether = true\n", "extinctionTogether needs"),
    ] {
        let err = load_err(text);
        assert!(matches!(&err, DefinitionError::Invalid { line: 1, .. }), "{text:?}: {err:?}");
        assert!(err.to_string().contains(why), "{text:?}: {err}");
    }
}

/// A file mixing sections Menagerie plays and sections it cannot.
const MIXED: &str = "\
[good:chess]
castling = false

[drops:chess]
customPiece25 = a:W

[child-of-drops:drops]
maxFile = 10

[orphan:fourhouse]

[typo:chess]
just words

[chess]
maxRank = 6

[also-good:good]
startFen = 4k3/8/8/8/8/8/8/4K3 w - - 0 1
";

fn lenient() -> LoadOptions<'static> {
    LoadOptions::default()
}

#[test]
fn lenient_load_skips_what_cannot_be_played_and_loads_the_rest() {
    let mut defs = Definitions::builtin();
    let loaded = defs.load_with(MIXED, "mixed.ini", lenient()).expect("a lenient load only skips");
    assert_eq!(loaded.added, vec!["good", "also-good"]);
    let skipped: Vec<(String, usize, String)> =
        loaded.skipped.iter().map(|s| (s.name.clone(), s.error.location().1, s.error.reason())).collect();
    assert_eq!(
        skipped,
        vec![
            (
                "drops".to_string(),
                5,
                "'customPiece25 = a:W' needs more than 24 custom pieces, which Menagerie does not play".to_string()
            ),
            ("child-of-drops".to_string(), 7, "its parent 'drops' was skipped".to_string()),
            ("orphan".to_string(), 10, "unknown parent 'fourhouse'".to_string()),
            ("typo".to_string(), 13, "syntax error: just words".to_string()),
            ("chess".to_string(), 15, "a variant of that name is already defined".to_string()),
        ]
    );
    // One line per section: file, line, section and reason.
    assert_eq!(
        loaded.skipped[0].to_string(),
        "mixed.ini:5: variant 'drops' skipped: 'customPiece25 = a:W' needs more than 24 custom pieces, which Menagerie does not play"
    );
    assert!(defs.get("good").is_some() && defs.get("also-good").is_some());
    assert!(defs.get("drops").is_none() && defs.get("child-of-drops").is_none());
    // The built-in chess was not replaced.
    assert_eq!(Position::start(defs.get("chess").unwrap()).perft(1), 20);
    // A later file's child of a skipped section names the skipped parent.
    let later = defs.load_with("[grandchild:child-of-drops]\n", "later.ini", lenient()).unwrap();
    assert!(later.added.is_empty());
    assert_eq!(later.skipped[0].error.reason(), "its parent 'child-of-drops' was skipped");
}

#[test]
fn strict_load_stops_at_the_first_unplayable_section() {
    let mut defs = Definitions::builtin();
    let options = LoadOptions { strict: true, ..LoadOptions::default() };
    let err = defs.load_with(MIXED, "mixed.ini", options).expect_err("strict");
    assert!(matches!(&err, DefinitionError::Unsupported { line: 5, key, .. } if key == "customPiece25"), "{err:?}");
    // Nothing was added, not even the good section before it.
    assert!(defs.get("good").is_none());
    // `load` is strict.
    assert_eq!(defs.load(MIXED, "mixed.ini").unwrap_err(), err);
}

#[test]
fn file_level_errors_stop_a_lenient_load() {
    for (text, line) in [("maxRank = 8\n[x:chess]\n", 1), ("[x:chess]\n[y:chess\n", 2)] {
        let mut defs = Definitions::builtin();
        let err = defs.load_with(text, "bad.ini", lenient()).expect_err(text);
        assert!(matches!(err, DefinitionError::Syntax { line: l, .. } if l == line), "{text:?}: {err:?}");
        assert!(defs.get("x").is_none());
    }
    let mut defs = Definitions::builtin();
    defs.limit_added(2);
    let err = defs.load_with("[a:chess]\n[b:nosuch]\n[c:chess]\n[d:chess]\n", "many.ini", lenient()).unwrap_err();
    // Skipped sections do not count against the limit.
    assert!(matches!(err, DefinitionError::TooMany { line: 4, max: 2, .. }), "{err:?}");
}

#[test]
fn reserved_names_are_refused() {
    let mut defs = Definitions::builtin();
    let reserved = |name: &str| name.eq_ignore_ascii_case("alpaca");
    let options = LoadOptions { strict: false, reserved: Some(&reserved) };
    let loaded = defs.load_with("[ALPACA:chess]\n[ok:chess]\n", "r.ini", options).unwrap();
    assert_eq!(loaded.added, vec!["ok"]);
    assert!(matches!(&loaded.skipped[0].error, DefinitionError::Reserved { line: 1, name, .. } if name == "ALPACA"));
    let strict = LoadOptions { strict: true, reserved: Some(&reserved) };
    let err = defs.load_with("[alpaca:chess]\n", "r.ini", strict).unwrap_err();
    assert_eq!(
        err.to_string(),
        "r.ini:1: variant 'alpaca' is built into Menagerie and cannot be redefined (rename the section)"
    );
}

const FORMS: &str = include_str!("../../../tests/variants/fsf-forms.ini");

/// Each form of `tests/variants/fsf-forms.ini` loads and reads as
/// Fairy-Stockfish reads it (legal move counts and FENs from pyffish
/// 0.0.90 with the same file); each skipped section has its reason.
#[test]
fn fairy_stockfish_forms_load_and_each_skip_has_its_reason() {
    let mut defs = Definitions::builtin();
    let loaded = defs.load_with(FORMS, "fsf-forms.ini", lenient()).expect("a lenient load only skips");
    assert_eq!(
        loaded.added,
        vec![
            "form-no-flags",
            "form-board-only",
            "form-digit-in-ep-slot",
            "form-kqkq-without-castling",
            "form-small-board-castling",
            "form-default-options",
        ]
    );
    for (name, moves, fen) in [
        ("form-no-flags", 6, "ssssss/6/6/6/6/SSSSSS w - - 0 1"),
        ("form-board-only", 12, "mmmm/4/4/4/MMMM w - - 0 1"),
        ("form-digit-in-ep-slot", 7, "rnbkq/ppppp/5/5/PPPPP/RNBKQ w - - 1 1"),
        ("form-kqkq-without-castling", 20, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        ("form-small-board-castling", 9, "r1k1r/ppppp/5/PPPPP/R1K1R w - - 0 1"),
        ("form-default-options", 20, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ] {
        let pos = Position::start(defs.get(name).expect(name));
        assert_eq!((pos.legal_moves().len(), pos.fen().as_str()), (moves, fen), "{name}");
    }
    let skipped: Vec<(&str, usize, String)> =
        loaded.skipped.iter().map(|s| (s.name.as_str(), s.error.location().1, s.error.reason())).collect();
    let expect = |name: &str| skipped.iter().find(|s| s.0 == name).unwrap_or_else(|| panic!("{name} not skipped"));
    let reasons = [
        ("skip-unsupported", "'customPiece25 = a:W' needs more than 24 custom pieces, which Menagerie does not play"),
        ("skip-unknown-key", "unknown or unsupported key 'kingsFly'"),
        ("skip-invalid-value", "expected true or false"),
        ("skip-betza", "customPiece1"),
        ("skip-unknown-parent", "unknown parent 'no-such-parent'"),
        ("skip-skipped-parent", "its parent 'skip-unsupported' was skipped"),
        ("makruk", "a variant of that name is already defined"),
        ("skip-syntax", "syntax error: this line has no equals sign"),
        ("skip-duple", "dupleCheck needs extinctionPseudoRoyal"),
        ("skip-invalid", "invalid startFen"),
    ];
    for (name, reason) in reasons {
        let (_, line, text) = expect(name);
        assert!(text.contains(reason), "{name}: {text}");
        // The line is in the section: its header or one of its keys.
        let header = FORMS
            .lines()
            .position(|l| l.starts_with(&format!("[{name}:")) || l.starts_with(&format!("[{name}]")))
            .expect(name)
            + 1;
        assert!((header..header + 6).contains(line), "{name}: line {line}, header {header}");
    }
    assert_eq!(skipped.len(), reasons.len(), "{skipped:?}");
    // The built-in makruk is untouched.
    assert!(defs.get("makruk").expect("makruk").castling_squares().is_none());
    // Strict: the first unplayable section is an error and nothing loads.
    let mut strict = Definitions::builtin();
    let err = strict.load(FORMS, "fsf-forms.ini").expect_err("strict");
    assert!(matches!(&err, DefinitionError::Unsupported { key, .. } if key == "customPiece25"), "{err}");
    assert!(strict.get("form-no-flags").is_none());
}

/// Loads the variants file named by `MENAGERIE_FSF_VARIANTS_INI` (e.g.
/// Fairy-Stockfish's own `src/variants.ini`) when it is set: the load
/// never fails nor panics, every section is either added or skipped with a
/// reason and a line inside the file, and each added variant's start
/// position has legal moves counted. Skipped when the variable is unset.
#[test]
fn a_fairy_stockfish_variants_file_loads_leniently() {
    let Some(text) = common::file_named_by("MENAGERIE_FSF_VARIANTS_INI") else { return };
    let sections = text.lines().filter(|l| l.trim_start().starts_with('[')).count();
    let mut defs = Definitions::builtin();
    let loaded = defs.load_with(&text, "variants.ini", lenient()).expect("a lenient load only skips");
    assert_eq!(loaded.added.len() + loaded.skipped.len(), sections);
    let lines = text.lines().count();
    for s in &loaded.skipped {
        let (file, line) = s.error.location();
        assert_eq!(file, "variants.ini");
        assert!((1..=lines).contains(&line), "{s}");
        assert!(!s.error.reason().is_empty(), "{s}");
    }
    for name in &loaded.added {
        let pos = Position::start(defs.get(name).expect("added"));
        let _ = pos.perft(2);
    }
    eprintln!("{} sections: {} loaded, {} skipped", sections, loaded.added.len(), loaded.skipped.len());
}

#[test]
fn twenty_four_piece_types_load_and_a_twenty_fifth_is_refused() {
    // Chess's six and eighteen custom pieces: the most one definition holds.
    let letters = "acdefghijlmostuvwx";
    let customs: String = letters.chars().enumerate().map(|(i, l)| format!("customPiece{} = {l}:W\n", i + 1)).collect();
    let mut defs = Definitions::builtin();
    defs.load(&format!("[big:chess]\n{customs}"), "big.ini").unwrap();
    let big = defs.get("big").unwrap();
    let fen = "4k3/8/8/8/8/8/8/X3K3 w - - 0 1";
    let pos = Position::from_fen(big, fen).unwrap();
    let moves: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
    assert!(moves.contains(&"a1a2".to_string()) && moves.contains(&"a1b1".to_string()), "{moves:?}");
    // A 25th type is an error naming the limit, never a panic.
    let mut defs = Definitions::builtin();
    let err = defs.load(&format!("[bigger:chess]\n{customs}customPiece19 = y:F\n"), "bigger.ini").unwrap_err();
    assert!(err.to_string().contains("more than 24 piece types"), "{err}");
}
