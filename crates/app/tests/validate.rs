//! Move validation and the game-end policy (`menagerie_app::play`), for
//! compiled games and games defined as data, and the work a validation
//! costs in move generations.

use menagerie_app::play::{GameStatus, ValidateError, Validation};
use menagerie_app::{PositionRequest, Variants};
use menagerie_variants::generations;

fn validate(variant: &str, fen: &str, moves: &[&str], mv: &str) -> Result<Validation, ValidateError> {
    Variants::builtin().validate(&PositionRequest::new(variant, fen, moves), mv)
}

fn legal(variant: &str, fen: &str, moves: &[&str], mv: &str) -> menagerie_app::play::ValidMove {
    match validate(variant, fen, moves, mv) {
        Ok(Validation::Legal(v)) => v,
        other => panic!("{mv} after {moves:?}: {other:?}"),
    }
}

fn illegal(variant: &str, fen: &str, moves: &[&str], mv: &str) -> String {
    match validate(variant, fen, moves, mv) {
        Ok(Validation::Illegal(why)) => why,
        other => panic!("{mv} after {moves:?}: {other:?}"),
    }
}

/// A 20-move request (SAN and coordinate moves mixed).
const GAME: [&str; 20] = [
    "e4", "e7e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3", "O-O", "h3",
    "Nb8", "d4", "Nbd7",
];

#[test]
fn a_validation_generates_moves_once_per_position() {
    let before = generations::count();
    let v = legal("chess", "", &GAME, "c4");
    let used = generations::count() - before;
    assert_eq!(v.san, "c4");
    // One generation per move of the request, one for the position the move
    // is played in (game over? which move? its SAN) and one for the
    // position after it (mate? the game's status).
    assert!(used <= 22, "{used} move generations for a 20-move validation");
    assert_eq!(used, 22);
}

#[test]
fn a_legal_move_is_described() {
    let v = legal("chess", "", &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"], "Qxf7");
    assert_eq!((v.uci.as_str(), v.san.as_str()), ("h5f7", "Qxf7#"));
    assert_eq!(v.fen, "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4");
    assert!(v.check && v.capture);
    let ended = v.status.ended.expect("mate ends the game");
    assert_eq!((ended.result, ended.winner, ended.reason), ("1-0", "white", "checkmate"));
    assert_eq!(ended.description, "checkmate, White wins");
    assert_eq!(v.status.claimable_draw, "");

    let quiet = legal("chess", "", &[], "g1f3");
    assert_eq!((quiet.san.as_str(), quiet.check, quiet.capture), ("Nf3", false, false));
    assert_eq!(quiet.status, GameStatus::default());
}

#[test]
fn illegal_ambiguous_malformed_and_finished() {
    assert!(illegal("chess", "", &[], "e5").contains("'e5' is illegal here"), "{}", illegal("chess", "", &[], "e5"));
    let two_knights = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
    assert!(illegal("chess", two_knights, &[], "Nd2").contains("ambiguous"));
    assert!(matches!(validate("chess", "", &[], "hello"), Err(ValidateError::Malformed(_))));
    assert!(matches!(validate("chess", "", &["e4", "e4"], "e5"), Err(ValidateError::Position(_))));
    assert!(matches!(validate("shogi-ish", "", &[], "e4"), Err(ValidateError::Position(_))));
    let mated = ["f3", "e5", "g4", "Qh4"];
    let why = illegal("chess", "", &mated, "a3");
    assert_eq!(why, "the game is over: checkmate, Black wins");
}

#[test]
fn repetitions_and_move_counts_follow_the_policy() {
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    // The start position again after 4 plies (2nd time) and 8 (3rd time):
    // the 3rd is a claimable draw, the 5th ends the game.
    let twice: Vec<&str> = shuffle.iter().cycle().take(7).copied().collect();
    let v = legal("chess", "", &twice, "Ng8");
    assert_eq!((v.status.ended.clone(), v.status.claimable_draw), (None, "repetition"));
    let four: Vec<&str> = shuffle.iter().cycle().take(15).copied().collect();
    let v = legal("chess", "", &four, "Ng8");
    let ended = v.status.ended.expect("fivefold ends the game");
    assert_eq!((ended.result, ended.reason), ("1/2-1/2", "fivefold_repetition"));

    let v = legal("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 99 80", &[], "Ra2");
    assert_eq!((v.status.ended, v.status.claimable_draw), (None, "fifty_moves"));
    let v = legal("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 149 120", &[], "Ra2");
    assert_eq!(v.status.ended.map(|e| e.reason), Some("seventy_five_moves"));
    let v = legal("chess", "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", &[], "Kxd2");
    assert_eq!(v.status.ended.map(|e| e.reason), Some("insufficient_material"));
}

#[test]
fn games_defined_as_data_are_validated_by_their_own_rules() {
    // Capablanca chess: the knights start on b1 and i1 of a 10x8 board.
    let v = legal("capablanca", "", &["e4", "e5"], "Nh3");
    assert_eq!((v.uci.as_str(), v.san.as_str()), ("i1h3", "Nh3"));
    assert!(!v.check && !v.capture);
    assert_eq!(v.status, GameStatus::default());
    assert!(illegal("capablanca", "", &[], "e5").contains("'e5'"));
    assert!(matches!(validate("capablanca", "", &[], "hello"), Err(ValidateError::Malformed(_))));
    // King of the hill: a king on the centre wins at once.
    let v = legal("kingofthehill", "4k3/8/8/8/8/3K4/8/8 w - - 0 1", &[], "Kd4");
    let ended = v.status.ended.expect("the king reached the hill");
    assert_eq!((ended.result, ended.winner, ended.reason), ("1-0", "white", "flag"));
    let why = illegal("kingofthehill", "4k3/8/8/8/3K4/8/8/8 b - - 0 1", &[], "Kd7");
    assert!(why.starts_with("the game is over: "), "{why}");
}

#[test]
fn legal_moves_are_listed_for_both_kinds_of_game() {
    let v = Variants::builtin();
    let none: &[&str] = &[];
    let l = v.legal_moves(&PositionRequest::new("chess", "", none)).expect("chess");
    assert_eq!(l.moves.len(), 20);
    assert_eq!((l.side_to_move, l.check, l.insufficient_material), ("white", false, [false, false]));
    let nf3 = l.moves.iter().find(|m| m.uci == "g1f3").expect("Nf3 listed");
    assert_eq!(nf3.san, "Nf3");
    assert_eq!(nf3.fen, "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
    // A mated side has no moves, and the status says why.
    let mated = v.legal_moves(&PositionRequest::new("chess", "", &["f3", "e5", "g4", "Qh4"])).expect("mate");
    assert!(mated.moves.is_empty() && mated.check);
    assert_eq!(mated.status.ended.map(|e| e.reason), Some("checkmate"));
    // A game defined as data: Capablanca chess has 28 first moves.
    let capa = v.legal_moves(&PositionRequest::new("capablanca", "", none)).expect("capablanca");
    assert_eq!(capa.moves.len(), 28);
    assert_eq!(capa.side_to_move, "white");
    assert!(capa.moves.iter().any(|m| m.uci == "i1h3" && m.san == "Nh3"));
    assert!(v.legal_moves(&PositionRequest::new("chess", "", &["e5"])).is_err());
}
