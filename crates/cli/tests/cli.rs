//! Drives the built `menagerie` binary: perft, divide, moves, validate and
//! epd on orthodox chess, the exit codes (0 ok, 1 suite mismatch, 2 bad
//! input) and one-line `error:` messages, and never a panic.

mod common;

use common::{START, last_line, ok, run, stderr, stdout};
use std::path::{Path, PathBuf};

/// Runs and expects exit code 2 with exactly one `error: ...` line on
/// stderr; returns that line.
#[track_caller]
fn bad_input(args: &[&str]) -> String {
    failure(args, 2)
}

/// Runs a command whose input is well formed but holds an illegal (or
/// ambiguous) move: exit 1 and one `error:` line, returned.
fn illegal_move(args: &[&str]) -> String {
    failure(args, 1)
}

fn failure(args: &[&str], code: i32) -> String {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "menagerie {args:?}: stdout {:?}, stderr {err:?}", stdout(&o));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "menagerie {args:?}: expected one stderr line, got {err:?}");
    assert!(lines[0].starts_with("error: "), "menagerie {args:?}: {err:?}");
    lines[0].to_string()
}

// ----- help ------------------------------------------------------------------

#[test]
fn server_options_have_their_own_heading_in_every_commands_help() {
    for cmd in ["match", "svg", "perft"] {
        let help = ok(&[cmd, "--help"]);
        let (options, server) = help.split_once("Server options (with --remote):").expect("the heading");
        for flag in ["--remote", "--ca", "--token", "--client-cert", "--tls-server-name"] {
            assert!(!options.contains(&format!("{flag} ")), "{cmd}: {flag} among the command's own options");
            assert!(server.contains(&format!("{flag} ")), "{cmd}: {flag} not under the heading");
        }
        assert!(options.contains("--variants"), "{cmd}: the global flags that apply stay with the command's");
    }
    assert!(ok(&["match", "--help"]).contains("Runs locally: the server options are ignored"));
}

// ----- perft -----------------------------------------------------------------

#[test]
fn perft_3_from_the_start() {
    let out = ok(&["perft", "3"]);
    assert_eq!(last_line(&out), "8902");
}

#[test]
fn perft_threads_and_hash_agree() {
    assert_eq!(last_line(&ok(&["perft", "--threads", "2", "4"])), "197281");
    assert_eq!(last_line(&ok(&["perft", "--hash", "16", "4"])), "197281");
    assert_eq!(last_line(&ok(&["perft", "--threads", "2", "--hash", "4", "4"])), "197281");
}

#[test]
fn perft_small_depths() {
    assert_eq!(last_line(&ok(&["perft", "0"])), "1");
    assert_eq!(last_line(&ok(&["perft", "1"])), "20");
    // Kiwipete, given as a FEN.
    let kiwi = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(last_line(&ok(&["perft", "--fen", kiwi, "3"])), "97862");
    // After moves, in coordinate and SAN form: 1.e4 e5 leaves White 29 moves
    assert_eq!(last_line(&ok(&["perft", "--moves", "e2e4 e5", "1"])), "29");
    // Position 3 of the standard suite at depth 4.
    assert_eq!(last_line(&ok(&["perft", "-f", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "4"])), "43238");
}

#[test]
fn perft_rejects_absurd_depth() {
    let e = bad_input(&["perft", "99"]);
    assert!(e.contains("depth 99"), "{e}");
    bad_input(&["perft", "21"]);
    let e = bad_input(&["divide", "99"]);
    assert!(e.contains("depth"), "{e}");
    let e = bad_input(&["divide", "0"]);
    assert!(e.contains("depth"), "{e}");
}

#[test]
fn perft_rejects_bad_thread_and_hash_options() {
    let e = bad_input(&["perft", "--threads", "0", "2"]);
    assert!(e.contains("--threads"), "{e}");
    let e = bad_input(&["perft", "--threads", "100000", "2"]);
    assert!(e.contains("--threads"), "{e}");
    // A table size that cannot be meant (and would overflow the size computation).
    let e = bad_input(&["perft", "--hash", "17592186044416", "2"]);
    assert!(e.contains("--hash"), "{e}");
}

// ----- divide ----------------------------------------------------------------

#[test]
fn divide_2_from_the_start() {
    let out = ok(&["divide", "2"]);
    let lines: Vec<&str> = out.lines().collect();
    let rows: Vec<(&str, u64)> = lines
        .iter()
        .filter_map(|l| l.split_once(": "))
        .map(|(m, n)| (m, n.parse::<u64>().unwrap_or_else(|_| panic!("bad count in {out}"))))
        .collect();
    assert_eq!(rows.len(), 20, "{out}");
    assert!(rows.iter().all(|&(_, n)| n == 20), "every first move has 20 replies: {out}");
    assert_eq!(rows.iter().map(|&(_, n)| n).sum::<u64>(), 400);
    let mut moves: Vec<&str> = rows.iter().map(|&(m, _)| m).collect();
    moves.sort();
    moves.dedup();
    assert_eq!(moves.len(), 20);
    assert!(moves.contains(&"g1f3") && moves.contains(&"e2e4"), "{out}");
    assert_eq!(last_line(&out), "400");
    // 20 rows, a blank line, the total.
    assert_eq!(lines.len(), 22, "{out}");
    assert_eq!(lines[20], "");
}

#[test]
fn divide_with_threads_and_fen() {
    let kiwi = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = ok(&["divide", "--threads", "2", "--fen", kiwi, "2"]);
    let rows: Vec<(&str, u64)> =
        out.lines().filter_map(|l| l.split_once(": ")).map(|(m, n)| (m, n.parse().unwrap())).collect();
    assert_eq!(rows.len(), 48);
    assert_eq!(rows.iter().map(|&(_, n)| n).sum::<u64>(), 2039);
    assert_eq!(last_line(&out), "2039");
    assert!(rows.iter().any(|&(m, _)| m == "e1g1") && rows.iter().any(|&(m, _)| m == "e1c1"), "{out}");
}

// ----- moves -----------------------------------------------------------------

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(String::from).collect();
    v.sort();
    v
}

#[test]
fn moves_of_a_small_position() {
    // King and rook with the castling right: five king steps, castling, nine rook moves.
    let out = ok(&["moves", "--fen", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]);
    let mut want = vec![
        "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e1g1", "h1g1", "h1f1", "h1h2", "h1h3", "h1h4", "h1h5", "h1h6", "h1h7",
        "h1h8",
    ];
    want.sort();
    assert_eq!(sorted_lines(&out), want);
    // With SAN: the check on h8 is marked.
    let out = ok(&["moves", "--san", "--fen", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]);
    let lines = sorted_lines(&out);
    assert_eq!(lines.len(), 15);
    assert!(lines.contains(&"e1g1 O-O".to_string()), "{out}");
    assert!(lines.contains(&"h1h8 Rh8+".to_string()), "{out}");
    assert!(lines.contains(&"h1f1 Rf1".to_string()), "{out}");
}

#[test]
fn moves_after_moves() {
    let out = ok(&["moves", "--moves", "e2e4 e7e5"]);
    let lines = sorted_lines(&out);
    assert_eq!(lines.len(), 29, "{out}");
    assert!(lines.contains(&"g1f3".to_string()) && lines.contains(&"e1e2".to_string()), "{out}");
    assert!(!lines.contains(&"e4e5".to_string()) && !lines.contains(&"e1g1".to_string()), "{out}");
    // The same with comma separation and SAN.
    assert_eq!(ok(&["moves", "--moves", "e4,e5"]), out);
    assert_eq!(ok(&["moves", "-m", "e4", "-m", "e5"]), out);
}

#[test]
fn moves_of_a_finished_game_are_none() {
    // Fool's mate.
    let out = ok(&["moves", "--moves", "f3 e5", "--moves", "g4 Qh4#"]);
    assert_eq!(out, "");
}

#[test]
fn moves_rejects_an_illegal_move_in_the_list() {
    let e = illegal_move(&["moves", "--moves", "e2e4 e2e4"]);
    assert!(e.contains("moves[1]") && e.contains("e2e4"), "{e}");
    let e = bad_input(&["moves", "--moves", "zz"]);
    assert!(e.contains("moves[0]"), "{e}");
}

// ----- validate --------------------------------------------------------------

#[test]
fn validate_nf3() {
    let out = ok(&["validate", "Nf3"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "legal");
    assert!(lines.contains(&"san: Nf3"), "{out}");
    assert!(lines.contains(&"move: g1f3"), "{out}");
    assert!(lines.contains(&"fen: rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"), "{out}");
    // The same move in coordinate form, from an explicit FEN.
    assert_eq!(ok(&["validate", "--fen", START, "g1f3"]), out);
}

#[test]
fn validate_reports_mate() {
    let out = ok(&["validate", "Qh4", "--moves", "f3 e5 g4"]);
    let out = out.lines().collect::<Vec<_>>();
    assert_eq!(out[0], "legal");
    assert!(out.contains(&"san: Qh4#"), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("outcome: ")), "{out:?}");
}

#[test]
fn validate_illegal_move() {
    let o = run(&["validate", "e2e5"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "illegal\n");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.starts_with("error: ") && err.contains("e2e5"), "{err:?}");
    // SAN that is not legal, and garbage.
    let e = illegal_move(&["validate", "Nf6"]);
    assert!(e.contains("Nf6"), "{e}");
    // Not a move at all is bad input (exit 2), and says nothing on stdout.
    let o = run(&["validate", "hello"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(2), ""));
    assert!(stderr(&o).contains("hello"));
    let e = illegal_move(&["validate", "--fen", "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2"]);
    assert!(e.contains("ambiguous"), "{e}");
}

// ----- bad input -------------------------------------------------------------

#[test]
fn unknown_variant() {
    for cmd in [&["perft", "--variant", "nope", "1"][..], &["moves", "-v", "nope"], &["validate", "-v", "nope", "e4"]] {
        let e = bad_input(cmd);
        assert!(e.contains("nope"), "{e}");
        assert!(e.contains("chess"), "the known variants are listed: {e}");
    }
    let dir = std::env::temp_dir();
    let e = bad_input(&["epd", "--variant", "nope", dir.to_str().unwrap()]);
    assert!(e.contains("nope") && e.contains("chess"), "{e}");
}

#[test]
fn bad_fen_names_the_field() {
    let cases = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1", "castling"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en passant"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "board"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBSR w KQkq - 0 1", "g1"),
        ("4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1", "check"),
    ];
    for (fen, mentions) in cases {
        let e = bad_input(&["perft", "--fen", fen, "1"]);
        assert!(e.contains("FEN"), "{e}");
        assert!(e.contains(mentions), "{fen}: expected '{mentions}' in {e}");
    }
}

#[test]
fn clap_usage_errors_exit_2() {
    for args in [&["perft"][..], &["perft", "x"], &["frobnicate"], &["perft", "--threads", "-1", "1"]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_server_that_closes_the_connection_is_dialled_once_per_command() {
    let (url, accepted) = hanging_up_server();
    let commands = 12;
    for _ in 0..commands {
        let e = bad_input(&["--remote", &url, "moves"]);
        assert!(e.contains("server"), "{e}");
    }
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), commands, "one connection per command");
}

#[test]
fn a_single_request_to_several_replicas_dials_one_that_answers_once() {
    // A closed port and two servers that hang up: whichever replica a
    // command starts from, it reaches one server, once.
    let (a, count_a) = hanging_up_server();
    let (b, count_b) = hanging_up_server();
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let urls = format!("{closed},{a},{b}");
    let commands = 12;
    for _ in 0..commands {
        let e = bad_input(&["--remote", &urls, "moves"]);
        assert!(e.contains("server"), "{e}");
    }
    let total = count_a.load(std::sync::atomic::Ordering::SeqCst) + count_b.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(total, commands, "one connection per command");
}

/// A plaintext replica that goes away is reported as what happened to
/// which endpoint (closed, refused), never blamed on a client certificate.
#[test]
fn a_replica_that_goes_away_is_named_with_what_happened() {
    let (url, _) = hanging_up_server();
    let addr = url.trim_start_matches("http://");
    let e = bad_input(&["--remote", &url, "moves"]);
    // It closes with our request unread, so the close may arrive as a reset,
    // or (when the call was already on the wire) as the call's own
    // transport failure: a closed connection or a broken pipe.
    let named = [
        format!("{addr} closed the connection"),
        format!("the connection to {addr} failed: Connection reset"),
        "connection closed".to_string(),
        "connection reset".to_string(),
        "broken pipe".to_string(),
    ];
    assert!(named.iter().any(|n| e.contains(n.as_str())), "{e}");
    assert!(!e.contains("certificate"), "{e}");
    // A fan-out over a replica that refuses connections: each retry says so.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let o = run(&["--remote", &closed, "epd", "--attempts", "2", "tests/perft/chess-standard.epd", "--max-depth", "1"]);
    let e = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{e}");
    assert!(e.contains(&format!("cannot connect to {closed}")) && e.contains("refused"), "{e}");
    assert!(e.contains("retrying") && !e.contains("certificate"), "{e}");
}

/// A server that accepts, reads what the client sent and hangs up (as one
/// requiring a client certificate does after a TLS 1.3 handshake without
/// one): its URL and the count of connections it accepted.
fn hanging_up_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    let url = format!("http://{}", listener.local_addr().expect("its address"));
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            // An HTTP/2 server speaks first (an empty SETTINGS frame; a
            // plaintext client waits for it), then this one reads what the
            // client sent and hangs up.
            let _ = std::io::Write::write_all(&mut conn, &[0, 0, 0, 4, 0, 0, 0, 0, 0]);
            let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(10)));
            let mut buf = [0u8; 64];
            let _ = std::io::Read::read(&mut conn, &mut buf);
        }
    });
    (url, accepted)
}

// ----- epd -------------------------------------------------------------------

#[test]
fn epd_standard_suite_to_depth_3() {
    let out = ok(&["epd", "tests/perft/chess-standard.epd", "--max-depth", "3"]);
    assert_eq!(last_line(&out), "6 passed, 0 failed, 0 skipped");
    let out = ok(&["epd", "tests/perft/chess-standard.epd", "--max-depth", "2", "--threads", "2"]);
    assert_eq!(last_line(&out), "6 passed, 0 failed, 0 skipped");
}

/// A temporary suite file that removes itself.
struct TempSuite(PathBuf);

impl TempSuite {
    fn new(name: &str, text: &str) -> TempSuite {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}.epd", std::process::id()));
        std::fs::write(&path, text).expect("write the temporary suite");
        TempSuite(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().expect("UTF-8 path")
    }
}

impl Drop for TempSuite {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `menagerie epd` on `suite` and checks its exit code and summary
/// line; returns what it printed and its report lines (`line N: ...`).
#[track_caller]
fn epd_report(suite: &TempSuite, code: i32, summary: &str) -> (String, Vec<String>) {
    let o = run(&["epd", suite.path()]);
    assert_eq!(o.status.code(), Some(code), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(last_line(&out), summary, "{out}");
    let report = out.lines().filter(|l| l.starts_with("line ")).map(str::to_string).collect();
    (out, report)
}

#[test]
fn epd_mismatch_exits_1_and_names_the_line() {
    let suite = TempSuite::new(
        "mismatch",
        &format!("# a comment\n\n{START} ;D1 20 ;D2 400\n{START} ;D1 20 ;D2 401\n4k3/8/8/8/8/8/8/4K2R w K - ;D1 15\n"),
    );
    let (out, report) = epd_report(&suite, 1, "2 passed, 1 failed, 0 skipped");
    assert_eq!(report.len(), 1, "{out}");
    assert!(report[0].starts_with("line 4: depth 2: expected 401, got 400"), "{out}");
}

#[test]
fn epd_bad_fen_line_is_a_failure() {
    let suite = TempSuite::new("badfen", &format!("{START} ;D1 20\n8/8/8/8/8/8/8/8 w - - 0 1 ;D1 0\n"));
    let o = run(&["epd", suite.path()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.lines().any(|l| l.starts_with("line 2: bad FEN") && l.contains("kings")), "{out}");
    assert_eq!(last_line(&out), "1 passed, 1 failed, 0 skipped");
}

#[test]
fn epd_malformed_suite_or_missing_file_exits_2() {
    let suite = TempSuite::new("malformed", &format!("{START} ;D1 20\n{START} ;X1 20\n"));
    let e = bad_input(&["epd", suite.path()]);
    assert!(e.contains("line 2"), "{e}");
    let suite = TempSuite::new("badcount", &format!("{START} ;D1 twenty\n"));
    let e = bad_input(&["epd", suite.path()]);
    assert!(e.contains("line 1") && e.contains("twenty"), "{e}");
    let e = bad_input(&["epd", "tests/perft/no-such-suite.epd"]);
    assert!(e.contains("no-such-suite.epd"), "{e}");
}

#[test]
fn epd_rejects_absurd_max_depth() {
    // An unbounded --max-depth would let a suite line ask for an endless perft.
    let suite = TempSuite::new("deep", &format!("{START} ;D1 20 ;D99 1\n"));
    let e = bad_input(&["epd", suite.path(), "--max-depth", "99"]);
    assert!(e.contains("depth"), "{e}");
}

/// Nothing checked is not a pass: a line whose depths are all above
/// `--max-depth` is skipped (counted and listed), and the run passes only if
/// something was checked.
#[test]
fn epd_lines_above_max_depth_are_skipped_not_passed() {
    let suite = TempSuite::new(
        "skipped",
        &format!(
            "{START} ;D1 20 ;D2 400\n{START} ;D50 1\n4k3/8/8/8/8/8/8/4K2R w K - ;D1 15\n{START} ;D1 20 ;D7 3195901860\n"
        ),
    );
    let (out, report) = epd_report(&suite, 0, "3 passed, 0 failed, 1 skipped");
    assert_eq!(report.len(), 1, "{out}");
    assert!(report[0].starts_with("line 2: skipped: every depth is above the maximum 20 (D50)"), "{out}");

    // A failure still fails the run, with the skipped line counted apart.
    let suite = TempSuite::new("skipped-and-failed", &format!("{START} ;D1 21\n{START} ;D50 1\n"));
    let o = run(&["epd", suite.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(last_line(&stdout(&o)), "0 passed, 1 failed, 1 skipped");
}

/// With every line skipped nothing was checked: exit 1 with a message.
#[test]
fn epd_with_nothing_checked_exits_1() {
    let suite = TempSuite::new("all-skipped", &format!("{START} ;D50 1\n{START} ;D3 8902\n"));
    for args in [&["epd", suite.path(), "--max-depth", "0"][..], &["epd", suite.path(), "--max-depth", "2"]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let out = stdout(&o);
        assert_eq!(last_line(&out), "0 passed, 0 failed, 2 skipped", "{out}");
        assert_eq!(out.lines().filter(|l| l.contains(": skipped: ")).count(), 2, "{out}");
        assert!(stderr(&o).contains("nothing was checked"), "{}", stderr(&o));
    }
    // A line with no depths at all is skipped too.
    let suite = TempSuite::new("no-depths", &format!("{START}\n"));
    let o = run(&["epd", suite.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("line 1: skipped: no depths given"), "{}", stdout(&o));
    // A bad FEN is a failure whatever its depths.
    let suite = TempSuite::new("bad-skipped", "8/8/8/8/8/8/8/8 w - - 0 1 ;D50 1\n");
    let o = run(&["epd", suite.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(last_line(&stdout(&o)), "0 passed, 1 failed, 0 skipped");
}

/// RULES.md §2.2: a side in check during the prelude has no legal move; perft
/// of such a position is 0 at every depth (it used to capture the king and
/// panic).
#[test]
fn perft_of_a_prelude_in_check_is_zero() {
    for (variant, fen) in [
        ("alpaca", "4k3/8/8/8/8/8/8/4R1K1[a] b - - 0 1"),
        ("alpaca2", "3rk3/8/8/8/8/8/8/4R1K1[aa] b - - 0 1"),
        ("alseid", "4k3/8/8/8/8/8/8/4R1K1[s] b - - 0 1"),
        ("alpaca", "4r1k1/8/8/8/8/8/8/4K3[Aa?] w - - 0 1"),
    ] {
        let out = ok(&["perft", "--variant", variant, "--fen", fen, "3"]);
        assert_eq!(last_line(&out), "0", "{variant} {fen}");
        let out = ok(&["moves", "--variant", variant, "--fen", fen]);
        assert_eq!(out, "", "{variant} {fen}: no legal move");
    }
    let o = run(&["validate", "--variant", "alpaca", "--fen", "4k3/8/8/8/8/8/8/4R1K1[a] b - - 0 1", "A@e"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("checkmate"), "{}", stderr(&o));
}

#[test]
fn perft_from_maximal_clocks_does_not_panic() {
    let out = ok(&["perft", "--fen", "7k/8/8/8/8/8/8/K7 b - - 4294967295 4294967295", "2"]);
    assert_eq!(last_line(&out), "9");
}

#[test]
fn variants_lists_every_game() {
    let out = ok(&["variants"]);
    for name in ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino", "chess960"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("{name}  "))), "{name}: {out}");
    }
    assert!(out.contains("10x10") && out.contains("Alpaca"), "{out}");
    let json = ok(&["variants", "--json"]);
    // The eight compiled games, then the games of the built-in variants.ini.
    assert_eq!(json.lines().filter(|l| !l.contains("\"data\":true")).count(), 8);
    assert!(json.lines().filter(|l| l.contains("\"data\":true")).count() >= 13, "{json}");
    assert!(json.lines().all(|l| l.starts_with('{') && l.contains("\"start_fen\"")), "{json}");
    for name in ["makruk", "shatranj", "capablanca", "shako", "seirawan"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("{name}  "))), "{name}: {out}");
    }
}

#[test]
fn chess960_start_numbers() {
    // #518 is the orthodox array.
    assert_eq!(last_line(&ok(&["perft", "--variant", "chess960", "--start-number", "518", "3"])), "8902");
    let moves = ok(&["moves", "--variant", "chess960", "--start-number", "959", "--fens"]);
    assert_eq!(moves.lines().count(), 20);
    assert!(moves.lines().all(|l| l.contains(" rkrnnqbb/pppppppp/8/8/")), "{moves}");
    for (args, message) in [
        (vec!["perft", "--start-number", "3", "1"], "--start-number needs --variant chess960"),
        (vec!["perft", "--variant", "chess960", "--start-number", "960", "1"], "out of range (0 to 959)"),
        (
            vec!["perft", "--variant", "chess960", "--start-number", "1", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "1"],
            "cannot be used with",
        ),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(message), "{args:?}");
    }
}

/// A reader that goes away (`menagerie variants | head -1`) ends the
/// listing quietly: no panic, exit 0.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    for args in [&["variants"][..], &["--json", "variants"][..]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .args(args)
            .current_dir(common::root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the menagerie binary runs");
        // Close the reading end before the listing is written.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("menagerie exits");
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "menagerie {args:?} panicked:\n{err}");
        assert!(out.status.success(), "menagerie {args:?}: {:?}\n{err}", out.status);
    }
}
