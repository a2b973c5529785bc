//! The use cases that hand a request's game to the front ends as the one
//! face's `Game` (`Variants::game`, `Variants::game_to_search`), the one
//! game-end policy over it (`play::status`), and WritePgn's and
//! AnnotateGame's PGN tasks (`Variants::write_pgn`, `Variants::one_pgn_game`).

use menagerie_app::pgn::{MAX_TAGS, OneGameError, WritePgnError};
use menagerie_app::play::{SearchGameError, status};
use menagerie_app::{PositionError, PositionRequest, Variants};

const FOOLS_MATE: [&str; 4] = ["f3", "e5", "g4", "Qh4"];

#[test]
fn a_request_is_one_game_whatever_its_backend() {
    let v = Variants::builtin();
    let chess = v.game(&PositionRequest::new("chess", "", &["e4", "e7e5"])).expect("legal");
    assert!(chess.compiled().is_some() && chess.data().is_none());
    assert_eq!((chess.moves().len(), chess.history_keys().len()), (2, 2));
    assert_eq!(chess.current().legal_moves().len(), 29);
    let capa = v.game(&PositionRequest::new("capablanca", "", &["e4", "e7e5"])).expect("legal");
    assert!(capa.data().is_some() && capa.compiled().is_none());
    assert_eq!((capa.moves().len(), capa.history_keys().len()), (2, 2));
    assert_eq!(capa.history_keys()[0], capa.start().key());
    // One error for both backends, by the move's index, with one verdict.
    for variant in ["chess", "capablanca"] {
        let e = v.game(&PositionRequest::new(variant, "", &["e4", "e4"])).unwrap_err();
        assert!(matches!(&e, PositionError::Move { index: 1, source, .. } if source.is_illegal()), "{e}");
        let e = v.game(&PositionRequest::new(variant, "", &["e4", "hello"])).unwrap_err();
        assert!(matches!(&e, PositionError::Move { index: 1, source, .. } if source.is_malformed()), "{e}");
    }
    let capped = PositionRequest { max_moves: Some(1), ..PositionRequest::new("capablanca", "", &["e4", "e5"]) };
    assert_eq!(v.game(&capped).unwrap_err(), PositionError::TooManyMoves { count: 2, max: 1 });
}

#[test]
fn one_status_for_both_backends() {
    let v = Variants::builtin();
    for variant in ["chess", "crazyhouse"] {
        let game = v.game(&PositionRequest::new(variant, "", &FOOLS_MATE)).expect("legal");
        let ended = status(&game).ended.expect("mate");
        assert_eq!((ended.result, ended.winner, ended.reason), ("0-1", "black", "checkmate"), "{variant}");
    }
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let game = v.game(&PositionRequest::new("chess", "", &shuffle)).expect("legal");
    let s = status(&game);
    assert_eq!((s.ended, s.claimable_draw), (None, "repetition"));
}

#[test]
fn a_finished_game_is_not_searched() {
    let v = Variants::builtin();
    for variant in ["chess", "crazyhouse"] {
        let e = v.game_to_search(&PositionRequest::new(variant, "", &FOOLS_MATE)).unwrap_err();
        assert!(matches!(&e, SearchGameError::Over(d) if d.contains("heckmate")), "{variant}: {e}");
    }
    // A threefold repetition may be claimed, but the game goes on.
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let game = v.game_to_search(&PositionRequest::new("chess", "", &shuffle)).expect("searchable");
    assert_eq!(game.history_keys().len(), 8);
    let e = v.game_to_search(&PositionRequest::new("chess", "", &["e4", "e4"])).unwrap_err();
    assert!(matches!(e, SearchGameError::Position(PositionError::Move { index: 1, .. })), "{e}");
}

#[test]
fn a_written_pgn_takes_tags_and_a_result_the_game_allows() {
    let v = Variants::builtin();
    let opening = PositionRequest::new("chess", "", &["e4", "e5"]);
    let pgn = v.write_pgn(&opening, &[("Event", "Test")], "").expect("written");
    assert!(pgn.contains("[Event \"Test\"]") && pgn.contains("1. e4 e5 *"), "{pgn}");
    let drawn = v.write_pgn(&opening, &[], "1/2-1/2").expect("an undecided game takes any result");
    assert!(drawn.contains("1. e4 e5 1/2-1/2"), "{drawn}");
    let e = v.write_pgn(&opening, &[("Event", "x"), ("Bad Name", "x")], "").unwrap_err();
    assert!(matches!(&e, WritePgnError::TagName { index: 1, name } if name == "Bad Name"), "{e}");
    let e = v.write_pgn(&opening, &[("Event", "two\nlines")], "").unwrap_err();
    assert_eq!(e, WritePgnError::TagValue { index: 0 });
    let e = v.write_pgn(&opening, &[("Result", "1-0")], "").unwrap_err();
    assert!(matches!(e, WritePgnError::TagFromGame { index: 0, .. }), "{e}");
    let many = vec![("Event", "x"); MAX_TAGS + 1];
    let e = v.write_pgn(&opening, &many, "").unwrap_err();
    assert_eq!(e, WritePgnError::TooManyTags { count: MAX_TAGS + 1, max: MAX_TAGS });
    let e = v.write_pgn(&opening, &[], "2-0").unwrap_err();
    assert_eq!(e.to_string(), "'2-0' is not a result (1-0, 0-1, 1/2-1/2 or *)");
    for variant in ["chess", "crazyhouse"] {
        let mated = PositionRequest::new(variant, "", &FOOLS_MATE);
        let e = v.write_pgn(&mated, &[], "1-0").unwrap_err();
        assert!(matches!(&e, WritePgnError::Contradiction(m) if m.starts_with("'1-0' contradicts the game")), "{e}");
        let own = v.write_pgn(&mated, &[], "").expect("the game's own result");
        assert!(own.trim_end().ends_with("0-1"), "{variant}: {own}");
    }
}

#[test]
fn an_annotation_takes_one_pgn_game() {
    let v = Variants::builtin();
    let one = v.one_pgn_game("[Variant \"makruk\"]\n\n1. e4 d5 *\n").expect("one game");
    assert_eq!((one.variant_name(), one.plies()), ("makruk".to_string(), 2));
    assert!(matches!(v.one_pgn_game(""), Err(OneGameError::None)));
    let two = v.one_pgn_game("1. e4 *\n\n1. d4 *\n").unwrap_err();
    assert_eq!(two.to_string(), "the PGN holds 2 games; annotate one game per call");
    assert!(matches!(v.one_pgn_game("[Variant \"makruck\"]\n\n*\n"), Err(OneGameError::Read(_))));
}
