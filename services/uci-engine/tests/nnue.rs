#![allow(clippy::unwrap_used)]
//! The UCI options of the neural evaluation: `EvalFile` and `UseNNUE`.

mod common;

use common::{Engine, QUICK};
use menagerie_nnue::{FloatNetwork, Network, feature_count};
use menagerie_variants::Chess;
use std::path::PathBuf;

/// A chess network whose evaluation is +400 cp for the side to move in
/// every position: a zero hidden layer under a constant output bias of 1.
fn constant_net() -> Vec<u8> {
    let mut net = FloatNetwork::zeros("chess", feature_count::<Chess>(), 16);
    net.b2 = 1.0;
    Network::from_float(&net).to_bytes()
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("menagerie-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The score of the deepest `info depth` line of a `go depth N` search.
fn score(e: &mut Engine, depth: u32) -> String {
    e.send("position startpos");
    e.send(&format!("go depth {depth}"));
    let lines = e.read_until_prefix("bestmove", QUICK);
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    let at = info.find(" score ").unwrap();
    info[at + 7..].split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

#[test]
fn eval_file_and_use_nnue() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.read_until(QUICK, |l| l == "uciok");
    assert!(lines.iter().any(|l| l == "option name EvalFile type string default <empty>"));
    assert!(lines.iter().any(|l| l == "option name UseNNUE type check default true"));

    let linear = score(&mut e, 1);
    let good = temp_file("chess.nnue", &constant_net());
    e.send(&format!("setoption name EvalFile value {}", good.display()));
    let said = e.sync();
    assert!(said.iter().any(|l| l.starts_with("info string loaded network for chess")), "{said:?}");
    // Depth 1: every reply is evaluated at +400 for Black, to move.
    assert_eq!(score(&mut e, 1), "cp -400");
    assert_eq!(score(&mut e, 2), "cp 400");
    e.send("setoption name UseNNUE value false");
    assert_eq!(score(&mut e, 1), linear);
    e.send("setoption name UseNNUE value true");
    assert_eq!(score(&mut e, 1), "cp -400");

    // Bad files: reported, nothing changes.
    let mut corrupt = constant_net();
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 0x40;
    let other_game = {
        let net = FloatNetwork::zeros("chess", 100, 16);
        Network::from_float(&net).to_bytes()
    };
    let missing = good.with_file_name("missing.nnue");
    for (path, why) in [
        (temp_file("corrupt.nnue", &corrupt), "checksum"),
        (temp_file("short.nnue", &constant_net()[..50]), "truncated"),
        (temp_file("text.nnue", b"hello"), "magic"),
        (temp_file("inputs.nnue", &other_game), "inputs"),
        (missing, "cannot read"),
    ] {
        e.send(&format!("setoption name EvalFile value {}", path.display()));
        let said = e.sync();
        assert!(
            said.iter().any(|l| l.starts_with("info string error: EvalFile:") && l.contains(why)),
            "{path:?}: {said:?}"
        );
        assert!(e.alive());
    }
    assert_eq!(score(&mut e, 1), "cp -400");
    let _ = std::fs::remove_dir_all(good.parent().unwrap());
    e.quit(Some("quit"));
}
