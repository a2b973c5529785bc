//! Matches between real engines through the referee's one match loop:
//! Fairy-Stockfish against itself in variants defined as data (Capablanca
//! chess on 10x8, Makruk with its counting rules), and Debian's Stockfish
//! in chess for the compiled variants. The PGN each game produces is read
//! back move by move with Menagerie's rules, and its result checked
//! against the final position.
//!
//! Fairy-Stockfish (built with largeboards) is found through the
//! `MENAGERIE_FAIRY_STOCKFISH` environment variable or as
//! `fairy-stockfish` on the PATH; Stockfish as `stockfish` on the PATH or
//! `/usr/games/stockfish`. Without them those tests print why and pass.

use menagerie_notation::pgn::GameResult;
use menagerie_rules::{Definitions, EndReason, Position};
use menagerie_tournament::{
    Adjudication, Conditions, EngineConfig, EngineError, Event, GameRecord, MatchConfig, MatchVariant, Opening,
    Protocol, RulesEnd, Termination, TimeControl, Tournament, openings,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Fairy-Stockfish, or `None` after saying the test is skipped.
fn fairy_stockfish() -> Option<PathBuf> {
    let found = match std::env::var_os("MENAGERIE_FAIRY_STOCKFISH") {
        Some(p) if Path::new(&p).is_file() => Some(PathBuf::from(p)),
        _ => on_path("fairy-stockfish").or_else(|| on_path("fairy-stockfish-largeboard")),
    };
    if found.is_none() {
        println!("skipped: no Fairy-Stockfish (set MENAGERIE_FAIRY_STOCKFISH or put fairy-stockfish on the PATH)");
    }
    found
}

/// Stockfish, or `None` after saying the test is skipped.
fn stockfish() -> Option<PathBuf> {
    let found = on_path("stockfish").or_else(|| Some(PathBuf::from("/usr/games/stockfish")).filter(|p| p.is_file()));
    if found.is_none() {
        println!("skipped: no Stockfish (apt-get install stockfish)");
    }
    found
}

fn engine(command: &Path, name: &str) -> EngineConfig {
    let mut e = EngineConfig::uci(command);
    e.name = name.to_string();
    e.options = vec![("Hash".into(), "16".into()), ("Threads".into(), "1".into())];
    e
}

/// An engine spoken to over XBoard (which takes no UCI options).
fn xboard_engine(command: &Path, name: &str) -> EngineConfig {
    let mut e = engine(command, name);
    e.protocol = Protocol::Xboard;
    e.options.clear();
    e
}

/// The built-in data variant `name`.
fn data_variant(defs: &Definitions, name: &str) -> MatchVariant {
    MatchVariant::Data(defs.get(name).expect("built in").clone())
}

/// A match of `variant` from its start position.
fn from_start(engines: Vec<EngineConfig>, variant: MatchVariant, time: TimeControl) -> MatchConfig {
    let openings = vec![Opening::start_of(&variant)];
    config(engines, variant, openings, time)
}

fn config(engines: Vec<EngineConfig>, variant: MatchVariant, openings: Vec<Opening>, time: TimeControl) -> MatchConfig {
    MatchConfig {
        engines,
        variant,
        openings,
        tournament: Tournament::RoundRobin,
        games: 2,
        rounds: 1,
        repeat: 2,
        concurrency: 2,
        conditions: Conditions {
            time,
            adjudication: Adjudication { max_moves: Some(200), ..Adjudication::default() },
            time_margin: Duration::from_millis(100),
            move_timeout: Duration::from_secs(30),
            event: "test".into(),
            site: "?".into(),
        },
        sprt: None,
    }
}

/// Plays the match; returns the games in the order they finished.
fn play(config: &MatchConfig) -> Vec<GameRecord> {
    let mut games = Vec::new();
    let standings = menagerie_tournament::run(config, &AtomicBool::new(false), |e| {
        if let Event::Finished { record, .. } = e {
            games.push(*record);
        }
    });
    assert_eq!(standings.finished, standings.scheduled);
    games
}

/// A data variant's PGN game: its tags and SAN moves.
fn read_pgn(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix('[') {
            let (name, value) = t.split_once(' ').expect("a tag");
            tags.push((name.to_string(), value.trim_end_matches(']').trim_matches('"').to_string()));
        } else {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    let mut plain = String::new();
    let mut depth = 0;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            c if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let moves = plain
        .split_whitespace()
        .filter(|w| !w.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(w))
        .map(str::to_string)
        .collect();
    (tags, moves)
}

fn tag<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn rules_result(r: menagerie_rules::GameResult) -> GameResult {
    match r {
        menagerie_rules::GameResult::WhiteWins => GameResult::WhiteWins,
        menagerie_rules::GameResult::BlackWins => GameResult::BlackWins,
        menagerie_rules::GameResult::Draw => GameResult::Draw,
    }
}

/// Replays a data variant's game from its PGN and checks its moves and result.
fn check_data_game(defs: &Definitions, variant: &str, record: &GameRecord) {
    let text = record.pgn.to_pgn();
    let (tags, moves) = read_pgn(&text);
    assert_eq!(tag(&tags, "Variant"), Some(variant), "{text}");
    let def = defs.get(variant).expect("a built-in variant");
    let start = match tag(&tags, "FEN") {
        Some(fen) => {
            assert_eq!(tag(&tags, "SetUp"), Some("1"));
            Position::from_fen(def, fen).expect("the FEN tag reads back")
        }
        None => Position::start(def),
    };
    let mut game = menagerie_rules::Game::new(start);
    for san in &moves {
        let m =
            game.current().parse_any(san).unwrap_or_else(|e| panic!("{san}: {e} in {}\n{text}", game.current().fen()));
        game.play(m);
    }
    assert_eq!(tag(&tags, "PlyCount"), Some(moves.len().to_string().as_str()));
    let result = record.result();
    assert_eq!(tag(&tags, "Result"), Some(result.as_str()));
    let end = game.outcome().or_else(|| game.claimable());
    match &record.termination {
        Termination::Rules(RulesEnd::Data(o)) => {
            assert_eq!(end, Some(*o), "{text}");
            assert_eq!(result, rules_result(o.result));
            if o.reason == EndReason::Checkmate {
                assert!(game.current().in_check() && game.current().legal_moves().is_empty());
            }
        }
        Termination::MaxMoves => {
            assert_eq!(end, None);
            assert_eq!(result, GameResult::Draw);
        }
        t => panic!("unexpected end {t:?}\n{text}"),
    }
}

#[test]
fn fairy_stockfish_plays_capablanca_and_makruk() {
    let Some(fsf) = fairy_stockfish() else { return };
    let defs = Definitions::builtin();
    for (variant, openings) in
        [("capablanca", None), ("makruk", Some("rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1"))]
    {
        let def = defs.get(variant).expect("built in").clone();
        let openings = match openings {
            Some(fen) => {
                let file = std::env::temp_dir().join(format!("menagerie-match-{}-{variant}.epd", std::process::id()));
                std::fs::write(&file, format!("{fen} ;variant {variant}\n")).expect("a temporary file");
                let read = openings::read(&file, &MatchVariant::Data(def.clone()), None);
                let _ = std::fs::remove_file(&file);
                read.expect("the EPD reads")
            }
            None => vec![Opening::start_of(&MatchVariant::Data(def.clone()))],
        };
        let config = config(
            vec![engine(&fsf, "FSF-A"), engine(&fsf, "FSF-B")],
            MatchVariant::Data(def),
            openings,
            TimeControl::Nodes(3000),
        );
        let games = play(&config);
        assert_eq!(games.len(), 2);
        for g in &games {
            assert!(g.plies > 10, "{}", g.pgn.to_pgn());
            check_data_game(&defs, variant, g);
            if variant == "makruk" {
                assert!(g.pgn.to_pgn().contains("[FEN \"rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1\"]"));
            }
        }
        // The match's own PGN reads back as openings.
        let file = std::env::temp_dir().join(format!("menagerie-match-{}-{variant}.pgn", std::process::id()));
        let text: String = games.iter().map(|g| g.pgn.to_pgn()).collect();
        std::fs::write(&file, &text).expect("a temporary file");
        let again = openings::read(&file, &config.variant, None);
        let _ = std::fs::remove_file(&file);
        let again = again.expect("the match's PGN reads back");
        assert_eq!(again.len(), 2);
        for (o, g) in again.iter().zip(&games) {
            let Opening::Data { moves, .. } = o else { panic!("{o:?}") };
            assert_eq!(moves.len(), g.pgn.plies());
        }
        let whites: Vec<_> = games.iter().map(|g| g.pgn.tag("White").unwrap_or("").to_string()).collect();
        assert!(whites.contains(&"FSF-A".to_string()) && whites.contains(&"FSF-B".to_string()), "{whites:?}");
    }
}

#[test]
fn a_chess960_data_variant_is_played_with_uci_chess960() {
    let Some(fsf) = fairy_stockfish() else { return };
    let defs = Definitions::builtin();
    // Fairy-Stockfish plays it as seirawan with UCI_Chess960 (castling
    // written king-takes-rook), from a shuffled start where castling comes soon.
    let def = defs.get("seirawan960").expect("built in").clone();
    let start = Position::from_fen(&def, "rkb2nrq/pppppppp/8/8/8/8/PPPPPPPP/RKB2NRQ[HEhe] w ABGHabgh - 0 1");
    let Ok(start) = start else { panic!("{start:?}") };
    let engines = ["A", "B"].map(|n| {
        let mut e = engine(&fsf, n);
        e.variant_names.push(("seirawan960".into(), "seirawan".into()));
        e
    });
    let config = config(
        engines.to_vec(),
        MatchVariant::Data(def),
        vec![Opening::Data { start, moves: Vec::new() }],
        TimeControl::Nodes(3000),
    );
    for g in play(&config) {
        check_data_game(&defs, "seirawan960", &g);
    }
}

#[test]
fn an_engine_playing_another_variant_loses_by_an_illegal_move() {
    let Some(fsf) = fairy_stockfish() else { return };
    let defs = Definitions::builtin();
    // Told chess instead of makruk: every chess move from its start position
    // lands on a makruk pawn or starts from an empty square.
    let mut wrong = engine(&fsf, "Confused");
    wrong.variant_names.push(("makruk".into(), "chess".into()));
    let variant = data_variant(&defs, "makruk");
    let config = from_start(vec![engine(&fsf, "FSF"), wrong], variant, TimeControl::Depth(4));
    for g in play(&config) {
        let confused = if g.pgn.tag("White") == Some("Confused") { "White" } else { "Black" };
        match &g.termination {
            Termination::Engine { loser, error: EngineError::IllegalMove(_) } => assert_eq!(loser.name(), confused),
            t => panic!("{t:?}"),
        }
        assert_eq!(g.result(), if confused == "White" { GameResult::BlackWins } else { GameResult::WhiteWins });
        assert_eq!(g.pgn.tag("Termination"), Some("rules infraction"));
    }
}

#[test]
fn xboard_engines_are_refused_for_data_variants() {
    let Some(fsf) = fairy_stockfish() else { return };
    let defs = Definitions::builtin();
    let variant = data_variant(&defs, "shatranj");
    let xb = xboard_engine(&fsf, "XB");
    let config = from_start(vec![engine(&fsf, "UCI"), xb], variant, TimeControl::Depth(2));
    for g in play(&config) {
        match &g.termination {
            Termination::Engine { error: EngineError::Unsupported(why), .. } => {
                assert!(why.contains("UCI engines only"), "{why}")
            }
            t => panic!("{t:?}"),
        }
    }
}

#[test]
fn an_engine_without_uci_variant_cannot_play_a_data_variant() {
    let Some(sf) = stockfish() else { return };
    let defs = Definitions::builtin();
    let variant = data_variant(&defs, "makruk");
    let config = from_start(vec![engine(&sf, "SF-A"), engine(&sf, "SF-B")], variant, TimeControl::Depth(2));
    for g in play(&config) {
        // White's engine is set up first, and fails first.
        match &g.termination {
            Termination::Engine { loser: menagerie_pieces::Color::White, error: EngineError::Unsupported(why) } => {
                assert!(why.contains("no UCI option 'UCI_Variant'"), "{why}")
            }
            t => panic!("{t:?}"),
        }
        assert_eq!((g.plies, g.result()), (0, GameResult::BlackWins));
    }
}

#[test]
fn stockfish_plays_chess_through_the_same_loop() {
    let Some(sf) = stockfish() else { return };
    let variant = MatchVariant::Compiled(menagerie_variants::VariantId::Chess);
    let config = from_start(vec![engine(&sf, "SF-A"), engine(&sf, "SF-B")], variant, TimeControl::Depth(5));
    for g in play(&config) {
        let text = g.pgn.to_pgn();
        let read = menagerie_notation::pgn::read_str(&text).expect("the PGN reads back");
        let game = read[0].to_game().expect("every move is legal");
        assert_eq!(read[0].result, g.result());
        match &g.termination {
            Termination::Rules(RulesEnd::Compiled(o)) => {
                assert_eq!(game.outcome(), Some(*o), "{text}");
            }
            Termination::MaxMoves => assert_eq!(g.result(), GameResult::Draw),
            t => panic!("{t:?}\n{text}"),
        }
    }
}

/// The depths in a PGN's move comments (`+0.35/12 0.051s`), alternately
/// the first mover's and the other side's (a game without book moves).
fn comment_depths(pgn: &str) -> [Vec<u32>; 2] {
    let mut out = [Vec::new(), Vec::new()];
    let movetext = pgn.lines().filter(|l| !l.starts_with('[')).collect::<Vec<_>>().join(" ");
    let mut side = 0;
    for comment in movetext.split('{').skip(1).filter_map(|c| c.split_once('}').map(|(c, _)| c)) {
        let depth = comment.split_whitespace().next().and_then(|s| s.split_once('/')).and_then(|(_, d)| d.parse().ok());
        if let Some(d) = depth {
            out[side].push(d);
            side ^= 1;
        }
    }
    out
}

#[test]
fn an_engine_plays_at_its_own_limit_against_the_matchs() {
    let Some(sf) = stockfish() else { return };
    let variant = MatchVariant::Compiled(menagerie_variants::VariantId::Chess);
    let mut shallow = engine(&sf, "Shallow");
    shallow.time = Some(TimeControl::Depth(2));
    let mut config = from_start(vec![shallow, engine(&sf, "Deep")], variant, TimeControl::Depth(7));
    config.conditions.adjudication.max_moves = Some(12);
    for g in play(&config) {
        let text = g.pgn.to_pgn();
        assert_eq!(g.pgn.tag("TimeControl"), None, "{text}");
        assert_eq!(g.pgn.tag("WhiteTimeControl"), Some("-"), "{text}");
        // From the start position White moves first: its depths come first.
        let [white, black] = comment_depths(&text);
        let (shallow, deep) = if g.pgn.tag("White") == Some("Shallow") { (white, black) } else { (black, white) };
        assert!(!shallow.is_empty() && !deep.is_empty(), "{text}");
        assert!(shallow.iter().all(|&d| d <= 2), "{shallow:?}\n{text}");
        assert!(deep.iter().filter(|&&d| d >= 7).count() * 2 >= deep.len(), "{deep:?}\n{text}");
    }
}

#[test]
fn data_variant_openings_come_from_epd_and_pgn() {
    let defs = Definitions::builtin();
    let variant = data_variant(&defs, "capablanca");
    let dir = std::env::temp_dir();
    let file = |ext: &str, text: &str| {
        let path = dir.join(format!("menagerie-openings-{}.{ext}", std::process::id()));
        std::fs::write(&path, text).expect("a temporary file");
        let read = openings::read(&path, &variant, Some(3));
        let _ = std::fs::remove_file(&path);
        read
    };
    let read = file(
        "epd",
        "rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR b KQkq - ;variant capablanca\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;variant chess\n",
    )
    .expect("the EPD reads");
    assert_eq!(read.len(), 1, "the chess line is skipped");
    match &read[0] {
        Opening::Data { start, moves } => assert!(!start.white_to_move() && moves.is_empty()),
        o => panic!("{o:?}"),
    }
    // SAN or coordinates; comments, variations, NAGs and numbers skipped; at most 3 plies.
    let read = file(
        "pgn",
        "[Event \"a\"]\n[Variant \"capablanca\"]\n\n1. e4 {best} (1. d4 d5) e5 $1 2.Nh3 Nc6 3. Nc3 *\n\n\
         [Event \"b\"]\n[FEN \"rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR b KQkq - 0 1\"]\n\n\
         1... e7e5 2. Nh3 ; a line comment, to the end of the line: 3. Nc3\n2... Nc6 1-0\n",
    )
    .expect("the PGN reads");
    assert_eq!(read.len(), 2);
    let texts = |o: &Opening| match o {
        Opening::Data { start, moves } => {
            let mut p = start.clone();
            moves
                .iter()
                .map(|&m| {
                    let t = p.move_text(m);
                    p = p.play(m);
                    t
                })
                .collect::<Vec<_>>()
        }
        o => panic!("{o:?}"),
    };
    assert_eq!(texts(&read[0]), ["e2e4", "e7e5", "i1h3"]);
    assert_eq!(texts(&read[1]), ["e7e5", "i1h3", "b8c6"]);
    let err = file("pgn", "[Variant \"makruk\"]\n\n1. e4 *\n").expect_err("another variant").to_string();
    assert!(err.contains("game 1 is makruk"), "{err}");
    let err = file("pgn", "1. e4 e4 *\n").expect_err("an illegal move").to_string();
    assert!(err.contains("game 1") && err.contains("'e4'"), "{err}");
}

/// Chess960 positions where castling is the only mate in one: White's king
/// g1 takes its rook h1 (the king stays on g1, the rook goes to f1), and
/// Black's mirror image.
const CASTLE_MATES: [&str; 2] =
    ["4rkr1/4p1p1/8/8/2B5/8/PPPP4/6KR w H - 0 1", "6kr/pppp4/8/2b5/8/8/4P1P1/4RKR1 b h - 0 1"];

fn chess960_openings() -> Vec<Opening> {
    let v = menagerie_variants::VariantId::Chess960;
    let mut out: Vec<Opening> = CASTLE_MATES
        .iter()
        .map(|f| Opening::Compiled {
            start: menagerie_notation::fen::parse(v, f).expect("a Chess960 FEN"),
            moves: Vec::new(),
        })
        .collect();
    out.push(Opening::start_of(&MatchVariant::Compiled(v)));
    out
}

/// Plays a Chess960 match of six games, 60 moves at most, and checks that
/// every game ended by the rules or the length limit, and that each engine
/// castled (mated by castling) with both colours.
fn play_chess960(engines: Vec<EngineConfig>, time: TimeControl) {
    let variant = MatchVariant::Compiled(menagerie_variants::VariantId::Chess960);
    let mut config = config(engines, variant, chess960_openings(), time);
    config.games = 6;
    config.conditions.adjudication.max_moves = Some(60);
    let games = play(&config);
    let mut castle_mates = 0;
    for g in &games {
        let text = g.pgn.to_pgn();
        match &g.termination {
            Termination::Rules(RulesEnd::Compiled(_)) | Termination::MaxMoves => {}
            t => panic!("{t:?}\n{text}"),
        }
        let read = menagerie_notation::pgn::read_str(&text).expect("the PGN reads back");
        read[0].to_game().expect("every move is legal");
        if text.contains("O-O#") {
            castle_mates += 1;
        }
    }
    // Two castle-mate openings, each played with both colours.
    assert_eq!(castle_mates, 4, "{:#?}", games.iter().map(|g| g.pgn.to_pgn()).collect::<Vec<_>>());
}

#[test]
fn stockfish_plays_chess960_with_uci_chess960() {
    let Some(sf) = stockfish() else { return };
    play_chess960(vec![engine(&sf, "SF-A"), engine(&sf, "SF-B")], TimeControl::Nodes(20_000));
}

#[test]
fn fairy_stockfish_over_xboard_plays_chess960_against_stockfish() {
    let (Some(sf), Some(fsf)) = (stockfish(), fairy_stockfish()) else { return };
    let xb = xboard_engine(&fsf, "FSF-XBoard");
    play_chess960(vec![engine(&sf, "SF"), xb], TimeControl::Depth(6));
}

/// A Chess960 castling told to an XBoard engine reaches its board: both
/// sides' long castling, then the engine (Black, then White) plays a legal
/// move of the position after it. Fairy-Stockfish 11 refuses `O-O-O`
/// (`Error (unkown command)`) and takes king-takes-rook (`e1a1`).
#[test]
fn chess960_castling_reaches_an_xboard_engine() {
    let Some(fsf) = fairy_stockfish() else { return };
    use menagerie_tournament::engine::{Engine, GoLimits};
    use menagerie_variants::{AnyPosition, MoveKind, VariantId};
    let config = xboard_engine(&fsf, "FSF-XBoard");
    let start =
        menagerie_notation::fen::parse(VariantId::Chess960, "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 0 1")
            .unwrap();
    let mut e = Engine::start(&config).unwrap();
    let limits = GoLimits { depth: Some(3), ..GoLimits::default() };
    e.new_game(&start, &limits).unwrap();
    let long = |p: &AnyPosition| {
        *p.legal_moves().iter().find(|m| m.kind == MoveKind::Castle && m.to.0 < m.from.0).expect("long castling")
    };
    let white = long(&start);
    e.tell(&start, &[white]).unwrap();
    let after = start.play_unchecked(white);
    let reply = e.think(&start, &[white], &limits, Duration::from_secs(60)).unwrap();
    assert!(after.legal_moves().contains(&reply.moves[0]), "{:?}", e.log());
    e.quit();
}
