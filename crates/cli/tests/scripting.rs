//! The scripting interface of the built `menagerie` binary: `--json` (JSON
//! Lines) for every command, `--results` resume of a local `epd`, fan-out
//! flags rejected where they do nothing, and no progress bar (stdout and
//! stderr unchanged) when the output is not a terminal.

mod common;

use common::{START, lost_match, root, run, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Every stdout line parsed as a JSON object with a string `type`.
#[track_caller]
fn json_lines(o: &Output) -> Vec<Value> {
    let out = stdout(o);
    out.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:?}"));
            assert!(v.is_object() && v["type"].is_string(), "an object with a type: {l}");
            v
        })
        .collect()
}

/// Runs with `--json`, expects `code`; returns the JSON lines.
#[track_caller]
fn json(args: &[&str], code: i32) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(code), "menagerie {all:?}: {}", stderr(&o));
    json_lines(&o)
}

fn types(lines: &[Value]) -> Vec<&str> {
    lines.iter().map(|v| v["type"].as_str().expect("a type")).collect()
}

/// A temporary file that removes itself.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, text: Option<&str>) -> Temp {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("scripting-{name}-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        if let Some(text) = text {
            std::fs::write(&path, text).expect("write the temporary file");
        }
        Temp(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().expect("UTF-8 path")
    }
    fn read(&self) -> String {
        std::fs::read_to_string(&self.0).unwrap_or_default()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

// ----- --json ----------------------------------------------------------------

#[test]
fn json_perft() {
    let v = json(&["perft", "4"], 0);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["type"], "perft");
    assert_eq!(v[0]["nodes"], 197281);
    assert_eq!(v[0]["depth"], 4);
    assert!(v[0]["seconds"].is_f64() && v[0]["nps"].is_u64(), "{}", v[0]);
    // The flag may follow the subcommand, and hash and threads agree.
    let o = run(&["perft", "--threads", "2", "--hash", "4", "3", "--json"]);
    assert_eq!(json_lines(&o)[0]["nodes"], 8902);
    assert_eq!(json(&["perft", "0"], 0)[0]["nodes"], 1);
}

#[test]
fn json_divide() {
    let v = json(&["divide", "2"], 0);
    assert_eq!(v.len(), 21);
    assert!(v[..20].iter().all(|r| r["type"] == "move" && r["nodes"] == 20), "{v:?}");
    assert!(v.iter().any(|r| r["move"] == "g1f3" && r["san"] == "Nf3"), "{v:?}");
    let last = &v[20];
    assert_eq!(
        (last["type"].as_str(), last["nodes"].as_u64(), last["moves"].as_u64()),
        (Some("divide"), Some(400), Some(20))
    );
}

#[test]
fn json_moves() {
    let v = json(&["moves", "--moves", "e4 e5"], 0);
    assert_eq!(v.len(), 30);
    let nf3 = v.iter().find(|r| r["uci"] == "g1f3").expect("Nf3 is listed");
    assert_eq!(nf3["san"], "Nf3");
    assert!(nf3["fen"].as_str().unwrap().starts_with("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/"), "{nf3}");
    assert_eq!(v[29]["type"], "moves");
    assert_eq!(v[29]["count"], 29);
    // No legal move: only the summary.
    let v = json(&["moves", "--moves", "f3 e5 g4 Qh4#"], 0);
    assert_eq!(types(&v), ["moves"]);
    assert_eq!(v[0]["count"], 0);
}

#[test]
fn json_validate() {
    let v = json(&["validate", "Nf3"], 0);
    assert_eq!(v.len(), 1);
    let r = &v[0];
    assert_eq!((r["type"].as_str(), r["legal"].as_bool()), (Some("validate"), Some(true)));
    assert_eq!((r["move"].as_str(), r["san"].as_str()), (Some("g1f3"), Some("Nf3")));
    assert_eq!(r["fen"], "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
    assert!(r["outcome"].is_null());
    let v = json(&["validate", "Qh4", "--moves", "f3 e5 g4"], 0);
    assert!(v[0]["outcome"].as_str().is_some_and(|o| !o.is_empty()), "{}", v[0]);

    // Illegal: the JSON verdict on stdout, the error on stderr, exit 1.
    let o = run(&["--json", "validate", "e2e5"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_lines(&o);
    assert_eq!(v.len(), 1);
    assert_eq!((v[0]["legal"].as_bool(), v[0]["move"].as_str()), (Some(false), Some("e2e5")));
    assert!(v[0]["reason"].as_str().unwrap().contains("e2e5"), "{}", v[0]);
    assert!(stderr(&o).starts_with("error: ") && stderr(&o).lines().count() == 1, "{}", stderr(&o));
    // Bad input: nothing on stdout, exit 2.
    let o = run(&["--json", "validate", "hello"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(2), ""));
    assert!(stderr(&o).starts_with("error: "), "{}", stderr(&o));
}

#[test]
fn json_analyze() {
    let v = json(&["analyze", "--depth", "4"], 0);
    let (last, infos) = v.split_last().unwrap();
    assert!(!infos.is_empty());
    for i in infos {
        assert_eq!(i["type"], "info");
        assert!(i["depth"].is_u64() && i["nodes"].is_u64() && i["time_ms"].is_u64(), "{i}");
        assert!(i["score"]["cp"].is_i64() || i["score"]["mate"].is_i64(), "{i}");
        let (pv, san) = (i["pv"].as_array().unwrap(), i["pv_san"].as_array().unwrap());
        assert!(!pv.is_empty() && pv.len() == san.len(), "{i}");
    }
    assert_eq!(infos.last().unwrap()["depth"], 4);
    assert_eq!(last["type"], "analyze");
    assert!(last["bestmove"].as_str().is_some_and(|m| m.len() >= 4), "{last}");
    assert!(last["bestmove_san"].is_string(), "{last}");
}

#[test]
fn json_epd() {
    let suite = Temp::new(
        "json.epd",
        Some(&format!(
            "{START} ;D1 20 ;D2 400\n{START} ;D1 20 ;D2 401\n8/8/8/8/8/8/8/8 w - - 0 1 ;D1 0\n{START} ;D50 1\n"
        )),
    );
    let v = json(&["epd", suite.path()], 1);
    assert_eq!(types(&v), ["job", "job", "line", "job", "job", "line", "line", "line", "epd"]);
    assert_eq!(v[0]["id"], "line1-d1");
    assert_eq!(
        (v[0]["actual"].as_u64(), v[0]["pass"].as_bool(), v[0]["resumed"].as_bool()),
        (Some(20), Some(true), Some(false))
    );
    assert_eq!(
        (v[4]["expected"].as_u64(), v[4]["actual"].as_u64(), v[4]["pass"].as_bool()),
        (Some(401), Some(400), Some(false))
    );
    let results: Vec<(&str, &str)> = v
        .iter()
        .filter(|l| l["type"] == "line")
        .map(|l| (l["result"].as_str().unwrap(), l["reasons"][0].as_str().unwrap_or("")))
        .collect();
    assert_eq!(results[0], ("passed", ""));
    assert_eq!(results[1], ("failed", "depth 2: expected 401, got 400"));
    assert_eq!(results[2].0, "failed");
    assert!(results[2].1.starts_with("bad FEN"), "{results:?}");
    assert_eq!(results[3], ("skipped", "every depth is above the maximum 20 (D50)"));
    let sum = &v[8];
    assert_eq!((sum["passed"].as_u64(), sum["failed"].as_u64(), sum["skipped"].as_u64()), (Some(1), Some(2), Some(1)));
}

#[test]
fn json_variants() {
    let v = json(&["variants"], 0);
    // Eight compiled games, then the games defined as data.
    assert_eq!(v.iter().filter(|r| r["data"].is_null()).count(), 8);
    assert!(v.iter().filter(|r| r["data"] == true).count() >= 13, "{v:?}");
    assert!(v.iter().all(|r| r["type"] == "variant" && r["start_fen"].is_string()), "{v:?}");
    // Every variant lists its pieces; those defined as data have no values.
    for r in &v {
        let pieces = r["pieces"].as_array().unwrap_or_else(|| panic!("{r:?}"));
        assert!(
            !pieces.is_empty() && pieces.iter().all(|p| p["letter"].is_string() && p["betza"].is_string()),
            "{r:?}"
        );
        assert_eq!(pieces.iter().all(|p| p["value"].is_null()), r["data"] == true, "{r:?}");
    }
    let shatranj = v.iter().find(|r| r["name"] == "shatranj").unwrap();
    let names: Vec<&str> = shatranj["pieces"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["pawn", "knight", "rook", "fers", "alfil", "king"]);
    // The historical form, flag after the subcommand, still works.
    let o = run(&["variants", "--json"]);
    assert_eq!(json_lines(&o), v);
}

#[test]
fn json_pgn() {
    let v = json(&["pgn", "--check", "tests/pgn/bad.pgn"], 1);
    assert_eq!(types(&v), ["bad_game", "bad_game", "pgn"]);
    assert_eq!(v[0]["number"], 2);
    assert!(v[0]["error"].as_str().unwrap().contains("Ke3"), "{}", v[0]);
    assert_eq!((v[2]["games"].as_u64(), v[2]["bad"].as_u64()), (Some(4), Some(2)));

    let fens = json(&["pgn", "--fen", "tests/pgn/orthodox.pgn"], 0);
    let (sum, games) = fens.split_last().unwrap();
    assert!(!games.is_empty() && games.iter().all(|g| g["type"] == "game" && g["fen"].is_string()), "{fens:?}");
    assert_eq!(sum["games"].as_u64(), Some(games.len() as u64));
    let ucis = json(&["pgn", "--uci", "tests/pgn/orthodox.pgn"], 0);
    assert!(ucis[0]["moves"].as_array().is_some_and(|m| !m.is_empty()), "{}", ucis[0]);
    let export = json(&["pgn", "tests/pgn/orthodox.pgn"], 0);
    assert!(export[0]["pgn"].as_str().unwrap().contains("[Event "), "{}", export[0]);
    assert_eq!(export[0]["number"], 1);
}

#[test]
fn json_svg() {
    let v = json(&["svg", "--moves", "e4"], 0);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["type"], "svg");
    let svg = v[0]["svg"].as_str().unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
    let file = Temp::new("board.svg", None);
    let v = json(&["svg", "-o", file.path()], 0);
    assert_eq!((v[0]["file"].as_str(), v[0]["bytes"].as_u64()), (Some(file.path()), Some(file.read().len() as u64)));
}

/// Engines that cannot start lose their games at once: enough to see the
/// JSON stream of a match (a line per game, then the standings).
#[test]
fn json_match() {
    let v = json(&lost_match(&["--games", "2"]), 0);
    assert_eq!(types(&v), ["game", "game", "match"]);
    assert!(v[0]["result"].is_string() && v[0]["white"].is_string(), "{}", v[0]);
    assert_eq!((v[2]["finished"].as_u64(), v[2]["scheduled"].as_u64()), (Some(2), Some(2)));
    // --quiet leaves the standings alone.
    let v = json(&lost_match(&["--quiet", "--games", "1"]), 0);
    assert_eq!(types(&v), ["match"]);
}

#[test]
fn match_engines_at_odds() {
    // Each engine its own limit, no match limit: the summary names both.
    let v = json(
        &[
            "match",
            "--quiet",
            "--engine",
            "cmd=/nonexistent/a name=A nodes=100",
            "--engine",
            "cmd=/nonexistent/b name=B depth=3",
            "--games",
            "1",
        ],
        0,
    );
    assert_eq!(v[0]["time_control"], "A 100 nodes/move against B depth 3", "{}", v[0]);
    // One engine at odds against the match's limit.
    let v = json(
        &[
            "match",
            "--quiet",
            "--engine",
            "cmd=/nonexistent/a name=A tc=5+0.05",
            "--engine",
            "cmd=/nonexistent/b name=B",
            "--nodes",
            "500",
            "--games",
            "1",
        ],
        0,
    );
    assert_eq!(v[0]["time_control"], "A 5+0.05 against B 500 nodes/move", "{}", v[0]);
    // Clear errors: an engine without a limit when the match has none, two
    // limits in one spec, a limit that is no number.
    for (spec, says) in [
        ("cmd=/nonexistent/b", "give a time control"),
        ("cmd=/nonexistent/b nodes=10 depth=2", "at most one of tc, movetime, nodes and depth"),
        ("cmd=/nonexistent/b nodes=many", "nodes=many is not a count of nodes"),
        ("cmd=/nonexistent/b depth=0", "nodes and depth must be positive"),
        ("cmd=/nonexistent/b movetime=-1", "movetime must be a positive number of seconds"),
        ("cmd=/nonexistent/b tc=fast", "is not a time control"),
    ] {
        let o = run(&["match", "--engine", "cmd=/nonexistent/a nodes=100", "--engine", spec, "--games", "1"]);
        assert_eq!(o.status.code(), Some(2), "{spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{spec}: {}", stderr(&o));
    }
}

// ----- --results locally -----------------------------------------------------

fn records(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).expect("a JSON record")).collect()
}

#[test]
fn local_epd_results_resume() {
    let suite =
        Temp::new("resume.epd", Some(&format!("{START} ;D1 20 ;D2 400 ;D3 8902\n4k3/8/8/8/8/8/8/4K2R w K - ;D1 15\n")));
    let results = Temp::new("resume.jsonl", None);
    let o = run(&["epd", suite.path(), "--results", results.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let first = results.read();
    let recs = records(&first);
    let ids: Vec<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["line1-d1", "line1-d2", "line1-d3", "line2-d1"]);
    assert!(recs.iter().all(|r| r["pass"] == true && r["replica"] == "local"), "{first}");
    assert!(!stderr(&o).contains("resuming"), "{}", stderr(&o));

    // A second run runs nothing and appends nothing.
    let o = run(&["epd", suite.path(), "--results", results.path()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("resuming: 4 of 4 jobs already done"), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().last(), Some("2 passed, 0 failed, 0 skipped"));
    assert_eq!(results.read(), first);

    // A partial file (an interrupted run, its last line torn): only the
    // missing jobs run, and the stored results are trusted, not recomputed.
    let mut partial: Vec<&str> = first.lines().take(2).collect();
    let tampered = partial[1].replace("\"actual\":400", "\"actual\":399").replace("\"pass\":true", "\"pass\":false");
    partial[1] = &tampered;
    std::fs::write(&results.0, format!("{}\n{{\"id\":\"line1-d3\",\"dep", partial.join("\n"))).unwrap();
    let o = run(&["--json", "epd", suite.path(), "--results", results.path()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming: 2 of 4 jobs already done"), "{}", stderr(&o));
    let v = json_lines(&o);
    let jobs: Vec<(&str, bool)> = v
        .iter()
        .filter(|l| l["type"] == "job")
        .map(|l| (l["id"].as_str().unwrap(), l["resumed"].as_bool().unwrap()))
        .collect();
    assert_eq!(jobs, [("line1-d1", true), ("line1-d2", true), ("line1-d3", false), ("line2-d1", false)]);
    let line1 = v.iter().find(|l| l["type"] == "line" && l["line"] == 1).unwrap();
    assert_eq!(line1["reasons"][0], "depth 2: expected 400, got 399");
    let recs = records(
        &results.read().lines().filter(|l| !l.contains("\"dep\"") && l.ends_with('}')).collect::<Vec<_>>().join("\n"),
    );
    let ids: Vec<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["line1-d1", "line1-d2", "line1-d3", "line2-d1"], "{}", results.read());
}

#[test]
fn local_epd_results_of_another_suite_are_not_trusted() {
    let results = Temp::new("other.jsonl", None);
    let a = Temp::new("a.epd", Some(&format!("{START} ;D1 20\n")));
    assert_eq!(run(&["epd", a.path(), "--results", results.path()]).status.code(), Some(0));
    // The same line and depth with another expected count is run again.
    let b = Temp::new("b.epd", Some(&format!("{START} ;D1 21\n")));
    let o = run(&["epd", b.path(), "--results", results.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).contains("resuming"), "{}", stderr(&o));
    assert!(stdout(&o).contains("line 1: depth 1: expected 21, got 20"), "{}", stdout(&o));
    assert_eq!(records(&results.read()).len(), 2);
}

// ----- flags that need --remote ----------------------------------------------

#[track_caller]
fn usage_error(args: &[&str], mentions: &[&str]) {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "menagerie {args:?}: {err}");
    assert_eq!(stdout(&o), "", "menagerie {args:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    for m in mentions {
        assert!(err.contains(m), "{args:?}: expected '{m}' in {err}");
    }
}

#[test]
fn remote_only_flags_need_remote() {
    let suite = "tests/perft/chess-standard.epd";
    usage_error(&["perft", "--split-depth", "1", "3"], &["--split-depth", "--remote"]);
    usage_error(&["perft", "--jobs-per-replica", "2", "3"], &["--jobs-per-replica", "--remote"]);
    usage_error(&["perft", "--attempts", "5", "3"], &["--attempts", "--remote"]);
    usage_error(&["perft", "--job-timeout", "0", "3"], &["--job-timeout", "--remote"]);
    usage_error(&["perft", "--results", "r.jsonl", "3"], &["--results", "--remote"]);
    // Given explicitly, even with the default value.
    usage_error(&["epd", suite, "--jobs-per-replica", "2"], &["--jobs-per-replica", "--remote"]);
    usage_error(&["epd", suite, "--attempts", "5"], &["--attempts", "--remote"]);
    usage_error(&["epd", suite, "--job-timeout", "30"], &["--job-timeout", "--remote"]);
    // A remote perft without --split-depth is one call: no jobs to spread.
    // (Rejected before any connection is tried.)
    usage_error(
        &["--remote", "http://127.0.0.1:9", "perft", "--results", "r.jsonl", "3"],
        &["--results", "--split-depth"],
    );
    usage_error(&["--remote", "http://127.0.0.1:9", "perft", "--attempts", "2", "3"], &["--attempts", "--split-depth"]);
    assert!(!root().join("r.jsonl").exists());
}

// ----- no progress bar without a terminal --------------------------------------

#[test]
fn piped_output_has_no_progress_bar() {
    for args in [&["perft", "5"][..], &["divide", "4"], &["epd", "tests/perft/chess-standard.epd", "--max-depth", "3"]]
    {
        let plain = run(args);
        assert_eq!(plain.status.code(), Some(0));
        let err = stderr(&plain);
        assert!(!err.contains('\r') && !err.contains('\u{1b}') && !err.contains("nodes/s"), "{args:?}: {err:?}");
        // --no-progress changes nothing when there is no terminal anyway.
        let mut quiet = vec!["--no-progress"];
        quiet.extend_from_slice(args);
        let q = run(&quiet);
        assert_eq!(stdout(&q), stdout(&plain), "{args:?}");
    }
    // perft: the count alone on stdout, one stats line on stderr.
    let o = run(&["perft", "5"]);
    assert_eq!(stdout(&o), "4865609\n");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.starts_with("depth 5 nodes 4865609 time "), "{err:?}");
    // epd: only the summary.
    let o = run(&["epd", "tests/perft/chess-standard.epd", "--max-depth", "2"]);
    assert_eq!((stdout(&o).as_str(), stderr(&o).as_str()), ("6 passed, 0 failed, 0 skipped\n", ""));
}
