//! The tuner end to end: labelled positions in, a weights file out.

use std::path::PathBuf;
use std::process::Command;

/// 256 labelled chess positions (`FEN;score`): the start position with
/// some of each side's knights, bishop c and queen removed, scored by the
/// material left.
fn labelled() -> Vec<String> {
    const REMOVABLE: [(usize, i32); 4] = [(1, 320), (2, 330), (3, 900), (6, 320)];
    let rank = |mask: usize| -> (String, i32) {
        let mut cells: Vec<char> = "RNBQKBNR".chars().collect();
        let mut lost = 0;
        for (bit, &(i, v)) in REMOVABLE.iter().enumerate() {
            if mask >> bit & 1 == 1 {
                cells[i] = '1';
                lost += v;
            }
        }
        (menagerie_testkit::fen_rank(cells, '1'), lost)
    };
    let mut out = Vec::new();
    for w in 0..16 {
        for b in 0..16 {
            let (white, wl) = rank(w);
            let (black, bl) = rank(b);
            let fen = format!("{}/pppppppp/8/8/8/8/PPPPPPPP/{white} w - - 0 1", black.to_ascii_lowercase());
            out.push(format!("{fen};{}", bl - wl + 20));
        }
    }
    out
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("menagerie-tune-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn tune(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie-tune")).args(args).output().expect("run menagerie-tune");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn max_positions_counts_every_labels_file() {
    let d = dir("max");
    let a = d.join("a.txt");
    let b = d.join("b.txt");
    let all = labelled();
    std::fs::write(&a, all[..150].join("\n")).expect("write a");
    std::fs::write(&b, all[150..].join("\n")).expect("write b");
    let (ok, err) = tune(&[
        "--labels",
        a.to_str().expect("path"),
        "--labels",
        b.to_str().expect("path"),
        "--max-positions",
        "120",
        "--epochs",
        "1",
        "--holdout-every",
        "0",
    ]);
    assert!(ok, "{err}");
    // 120 kept from the first file, none read from the second.
    assert!(err.contains("120 labelled positions, 120 quiet kept"), "{err}");
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn a_fit_writes_a_weights_file_that_explains_the_labels_better() {
    let d = dir("fit");
    let labels = d.join("labels.txt");
    let out = d.join("w.txt");
    std::fs::write(&labels, labelled().join("\n")).expect("write labels");
    let (ok, err) = tune(&[
        "--labels",
        labels.to_str().expect("path"),
        "--epochs",
        "200",
        "--holdout-every",
        "0",
        "--only",
        "material",
        "--out",
        out.to_str().expect("path"),
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&out).expect("weights written");
    let mse = |t: &str| -> Vec<f64> {
        t.split("MSE train ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .map(|r| r.split("->").filter_map(|x| x.trim().parse().ok()).collect())
            .unwrap_or_default()
    };
    let m = mse(&text);
    assert_eq!(m.len(), 2, "header with the MSE before and after: {text}");
    assert!(m[1] < m[0], "the fit lowers the error: {text}");
    assert!(text.lines().any(|l| l.starts_with("material_")), "material weights written: {text}");
    assert!(!text.lines().any(|l| l.starts_with("mobility_")), "only the material was tuned: {text}");
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn an_only_prefix_that_names_no_weight_is_an_error_and_the_others_say_what_they_free() {
    let d = dir("only");
    let labels = d.join("labels.txt");
    std::fs::write(&labels, labelled().join("\n")).expect("write labels");
    let path = labels.to_str().expect("path");
    let (ok, err) = tune(&["--labels", path, "--epochs", "1", "--only", "material,materail"]);
    assert!(!ok);
    assert!(err.contains("--only materail: no weight name starts with 'materail'"), "{err}");
    let (ok, err) = tune(&["--labels", path, "--epochs", "1", "--holdout-every", "0", "--only", "kd_check"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("--only kd_check: kd_check_knight, kd_check_bishop, kd_check_rook, kd_check_queen\n"),
        "{err}"
    );
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn a_bad_label_names_file_and_line() {
    let d = dir("bad");
    let labels = d.join("bad.txt");
    std::fs::write(&labels, format!("{}\nnot a label\n", labelled()[0])).expect("write");
    let (ok, err) = tune(&["--labels", labels.to_str().expect("path"), "--epochs", "1"]);
    assert!(!ok);
    assert!(err.contains("bad.txt:2"), "{err}");
    std::fs::remove_dir_all(d).ok();
}
