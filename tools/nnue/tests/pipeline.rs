//! The pipeline end to end on a tiny data set: datagen writes records,
//! the trainer lowers the validation loss and writes a network the engine
//! crate loads.

use std::path::PathBuf;
use std::process::Command;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("menagerie-nnue-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary directory");
    dir.join(name)
}

fn losses(stderr: &str) -> Vec<f64> {
    stderr
        .lines()
        .filter_map(|l| l.split("validation loss ").nth(1))
        .filter_map(|rest| rest.split(',').next()?.trim().parse().ok())
        .collect()
}

#[test]
fn datagen_then_train_lowers_validation_loss_and_writes_a_loadable_net() {
    let data = tmp("chess.txt");
    let _ = std::fs::remove_file(&data);
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie-datagen"))
        .args(["--variant", "chess", "--games", "4", "--nodes", "300", "--seed", "3", "--out"])
        .arg(&data)
        .output()
        .expect("run menagerie-datagen");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&data).expect("datagen wrote its file");
    assert!(text.lines().count() >= 20, "too few positions:\n{text}");
    for (i, line) in text.lines().enumerate() {
        menagerie_nnue_tools::data::Record::parse(line, i + 1).expect("a valid record");
    }

    let net = tmp("chess.nnue");
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie-train"))
        .args(["--variant", "chess", "--epochs", "4", "--hidden", "16", "--lr", "0.01", "--valid", "0.2", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&net)
        .output()
        .expect("run menagerie-train");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let l = losses(&stderr);
    assert_eq!(l.len(), 5, "{stderr}");
    assert!(l[4] < l[0], "validation loss did not fall: {stderr}");
    let bytes = std::fs::read(&net).expect("the network file");
    let loaded = menagerie_nnue::Network::from_bytes(&bytes).expect("the network loads");
    assert_eq!(loaded.variant(), "chess");

    // Continue from the checkpoint; a corrupt checkpoint is an error.
    let mut ckpt = net.clone().into_os_string();
    ckpt.push(".ckpt");
    let resume = || {
        Command::new(env!("CARGO_BIN_EXE_menagerie-train"))
            .args(["--variant", "chess", "--epochs", "1", "--data"])
            .arg(&data)
            .arg("--resume")
            .arg(&ckpt)
            .arg("--out")
            .arg(&net)
            .output()
            .expect("run menagerie-train --resume")
    };
    let out = resume();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&ckpt, b"not a checkpoint").expect("overwrite the checkpoint");
    let out = resume();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a trainer checkpoint"));
    if let Some(dir) = data.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn stockfish() -> Option<PathBuf> {
    std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).map(|d| d.join("stockfish")).find(|p| p.is_file()))
        .or_else(|| Some(PathBuf::from("/usr/games/stockfish")).filter(|p| p.is_file()))
}

#[test]
fn label_rescores_from_whites_point_of_view_and_keeps_results() {
    let Some(sf) = stockfish() else {
        println!("skipped: no Stockfish (apt-get install stockfish)");
        return;
    };
    let data = tmp("unlabelled.txt");
    // White is a queen up with either side to move; then Black is a queen up.
    std::fs::write(
        &data,
        "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 0 | 1.0\n\
         rnb1kbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 0 | 0.5\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1 | 0 | 0.0\n",
    )
    .expect("write the input");
    let out_file = tmp("labelled.txt");
    let _ = std::fs::remove_file(&out_file);
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie-label"))
        .args(["--variant", "chess", "--nodes", "2000", "--option", "Hash=16", "--engine"])
        .arg(&sf)
        .arg("--data")
        .arg(&data)
        .arg("--out")
        .arg(&out_file)
        .output()
        .expect("run menagerie-label");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&out_file).expect("the labeller wrote its file");
    let records: Vec<_> = text
        .lines()
        .enumerate()
        .map(|(i, l)| menagerie_nnue_tools::data::Record::parse(l, i + 1).expect("a valid record"))
        .collect();
    assert_eq!(records.len(), 3, "{text}");
    assert!(records[0].score > 300 && records[1].score > 300, "{text}");
    assert!(records[2].score < -300, "{text}");
    assert_eq!(records.iter().map(|r| r.result).collect::<Vec<_>>(), [1.0, 0.5, 0.0]);
    assert!(records[1].fen.contains(" b "), "{text}");
}
