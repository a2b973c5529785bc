//! `--eval-file`: a network file that cannot be used stops the server at
//! start-up with the reason.

use std::process::Command;

#[test]
fn a_bad_eval_file_stops_the_server() {
    let dir = std::env::temp_dir().join(format!("menagerie-server-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.nnue");
    std::fs::write(&bad, b"MNNU\x07\x00\x00\x00").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie-server"))
        .args(["--listen", "127.0.0.1:0", "--eval-file"])
        .arg(&bad)
        .output()
        .expect("run the server");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot load --eval-file") && err.contains("version 7"), "{err}");
}
