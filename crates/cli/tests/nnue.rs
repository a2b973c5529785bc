//! `--eval-file`: local analysis with another network.

mod common;

use common::{run, stderr, stdout};
use menagerie_nnue::{FloatNetwork, Network, feature_count};
use menagerie_variants::Chess;

#[test]
fn eval_file_loads_a_network_and_refuses_a_bad_one() {
    let dir = std::env::temp_dir().join(format!("menagerie-cli-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // +400 cp for the side to move everywhere: at depth 1 White scores -400.
    let mut net = FloatNetwork::zeros("chess", feature_count::<Chess>(), 16);
    net.b2 = 1.0;
    let good = dir.join("chess.nnue");
    std::fs::write(&good, Network::from_float(&net).to_bytes()).expect("write");
    let o = run(&["analyze", "--depth", "1", "--eval-file", &good.display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("cp -400"), "{}", stdout(&o));

    let bad = dir.join("bad.nnue");
    std::fs::write(&bad, b"not a network").expect("write");
    let o = run(&["analyze", "--depth", "1", "--eval-file", &bad.display().to_string()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cannot load --eval-file") && stderr(&o).contains("magic"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
