#![allow(clippy::unwrap_used)]
//! The `menagerie-uci` command line and its errors: `--help` says what the
//! program is, its protocols and options, and exits without waiting for a
//! protocol; a misspelt variant (UCI_Variant) gets the closest name
//! suggested.

mod common;

use common::{Engine, QUICK};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs `menagerie-uci ARGS` with its standard input left open (a program
/// waiting for a protocol would never exit): its exit code and stdout.
fn run_with_open_input(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie-uci"))
        .args(args)
        .env_remove("MENAGERIE_VARIANTS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _input = child.stdin.take();
    let deadline = Instant::now() + QUICK;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("menagerie-uci {args:?} did not exit: it waits for a protocol");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    (status.code(), out)
}

#[test]
fn help_says_what_the_program_is_and_exits() {
    for flag in ["--help", "-h"] {
        let (code, help) = run_with_open_input(&[flag]);
        assert_eq!(code, Some(0), "{help}");
        for words in [
            "tournament engine",
            "UCI",
            "UCI_Variant",
            "XBoard/CECP",
            "xboard",
            "--variants FILE",
            "MENAGERIE_VARIANTS",
        ] {
            assert!(help.contains(words), "--help does not mention {words}:\n{help}");
        }
        // Every UCI option it names is one the engine offers.
        let mut e = Engine::start();
        e.send("uci");
        let offered: Vec<String> = e
            .read_until(QUICK, |l| l == "uciok")
            .iter()
            .filter_map(|l| l.strip_prefix("option name ")?.split(" type ").next().map(str::to_string))
            .collect();
        e.quit(Some("quit"));
        let listed = help.split("UCI options").nth(1).expect("a UCI options section");
        // One option a line: its name, two spaces, what it does.
        let named: Vec<&str> =
            listed.lines().skip(1).filter_map(|l| l.trim().split("  ").next()).filter(|n| !n.is_empty()).collect();
        assert!(named.len() >= 10, "{named:?}");
        for name in named {
            assert!(offered.iter().any(|o| o == name), "--help names {name}, which `uci` does not offer: {offered:?}");
        }
    }
    let (code, version) = run_with_open_input(&["--version"]);
    assert_eq!(code, Some(0));
    assert!(version.starts_with("menagerie-uci "), "{version}");
}

#[test]
fn a_misspelt_uci_variant_gets_the_closest_name_suggested() {
    let mut e = Engine::start();
    e.send("uci");
    e.read_until(QUICK, |l| l == "uciok");
    for (wrong, meant) in [("camel-rino", "camel-rhino"), ("Makruck", "makruk"), ("alpacca", "alpaca")] {
        e.send(&format!("setoption name UCI_Variant value {wrong}"));
        let said = e.sync();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].starts_with(&format!(
                "info string unknown variant '{wrong}': did you mean '{meant}'? (known: chess, "
            )),
            "{said:?}"
        );
    }
    e.send("setoption name UCI_Variant value tamerlane");
    let said = e.sync();
    assert!(said[0].starts_with("info string unknown variant 'tamerlane' (known: chess, "), "{said:?}");
    e.quit(Some("quit"));
}
