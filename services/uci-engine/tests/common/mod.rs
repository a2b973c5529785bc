//! Drives the built `menagerie-uci` binary over its standard input and
//! output. Every read has a timeout, so a hung engine fails the test with
//! the transcript instead of hanging it.

#![allow(dead_code)]

use menagerie_notation::{fen, uci};
use menagerie_variants::{AnyPosition, Move, VariantId};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Generous bound for anything the engine should answer at once.
pub const QUICK: Duration = Duration::from_secs(10);

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// Everything sent (`>> `) and received, for failure messages.
    transcript: Vec<String>,
    /// Added to failure messages (e.g. a known bug that may be the cause).
    pub hint: String,
}

impl Engine {
    /// Starts `menagerie-uci`.
    pub fn start() -> Engine {
        Engine::start_with(&[], &[])
    }

    /// Starts `menagerie-uci` with command-line arguments and environment
    /// variables (`MENAGERIE_VARIANTS` is unset unless given).
    pub fn start_with(args: &[&str], envs: &[(&str, &str)]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie-uci"))
            .args(args)
            .env_remove("MENAGERIE_VARIANTS")
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start menagerie-uci");
        let stdout = child.stdout.take().unwrap();
        let stderr_pipe = child.stderr.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, lines, stderr, transcript: Vec::new(), hint: String::new() }
    }

    /// Sends one command line.
    pub fn send(&mut self, cmd: &str) {
        self.send_bytes(format!("{cmd}\n").as_bytes());
        self.transcript.push(format!(">> {cmd}"));
    }

    /// Sends command lines in order.
    pub fn send_all(&mut self, cmds: &[&str]) {
        for cmd in cmds {
            self.send(cmd);
        }
    }

    /// Sends raw bytes (for malformed input).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        if let Err(e) = stdin.write_all(bytes).and_then(|()| stdin.flush()) {
            self.fail(&format!("writing to the engine failed: {e}"));
        }
    }

    /// The next line, or None after `timeout` (or at end of output).
    pub fn recv(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first one for which `done` holds;
    /// fails the test if none comes within `timeout`.
    pub fn read_until(&mut self, timeout: Duration, mut done: impl FnMut(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv(left) {
                Some(line) => {
                    let stop = done(&line);
                    out.push(line);
                    if stop {
                        return out;
                    }
                }
                None => self.fail(&format!("no awaited line within {timeout:?}")),
            }
        }
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn read_until_prefix(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        self.read_until(timeout, |l| l.starts_with(prefix))
    }

    /// Every line that arrives within `period`.
    pub fn collect_for(&mut self, period: Duration) -> Vec<String> {
        let deadline = Instant::now() + period;
        let mut out = Vec::new();
        while let Some(line) = self.recv(deadline.saturating_duration_since(Instant::now())) {
            out.push(line);
        }
        out
    }

    /// Starts `menagerie-uci` and speaks UCI (`uci`, up to `uciok`).
    pub fn uci() -> Engine {
        let mut e = Engine::start();
        e.send("uci");
        e.read_until(QUICK, |l| l == "uciok");
        e
    }

    /// Starts `menagerie-uci` in XBoard mode (`xboard`, `protover 2`) and
    /// reads its features.
    pub fn xboard() -> Engine {
        let mut e = Engine::start();
        e.send("xboard");
        e.send("protover 2");
        e.read_until(QUICK, |l| l.contains("done=1"));
        e
    }

    /// Starts `menagerie-uci` in XBoard mode ([`Engine::xboard`]) and sets
    /// up a new game of `variant` in force mode (`new`, `variant`, `force`).
    pub fn xboard_forced(variant: &str) -> Engine {
        let mut e = Engine::xboard();
        e.send_all(&["new", &format!("variant {variant}"), "force"]);
        e
    }

    /// UCI: sets the position `fen` (`position fen`) and sends the search
    /// command `go` (e.g. `go depth 3`).
    pub fn go_from(&mut self, fen: &str, go: &str) {
        self.send(&format!("position fen {fen}"));
        self.send(go);
    }

    /// XBoard: `ping n`, checking that the engine said exactly one line
    /// before `pong n`, starting with `prefix`.
    #[track_caller]
    pub fn ping_says_one(&mut self, n: u32, prefix: &str) {
        let said = self.ping(n);
        assert!(said.len() == 1 && said[0].starts_with(prefix), "{said:?}");
    }

    /// XBoard: `ping n` and wait for `pong n`; returns the lines before it.
    pub fn ping(&mut self, n: u32) -> Vec<String> {
        self.send(&format!("ping {n}"));
        let mut lines = self.read_until(QUICK, |l| l == format!("pong {n}"));
        lines.pop();
        lines
    }

    /// UCI: `isready` and wait for `readyok`; returns the lines before it.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.read_until(QUICK, |l| l == "readyok");
        lines.pop();
        lines
    }

    /// UCI: reads up to `bestmove` and returns (info lines, the move text).
    pub fn bestmove(&mut self, timeout: Duration) -> (Vec<String>, String) {
        let mut lines = self.read_until_prefix("bestmove", timeout);
        let last = lines.pop().unwrap();
        let mv = last.split_whitespace().nth(1).unwrap_or("").to_string();
        (lines, mv)
    }

    /// Waits for the process to exit (closing its input) and returns its status.
    pub fn exit_status(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + QUICK;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                self.fail("engine did not exit");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Sends `quit` (or closes the input) and checks the engine exits cleanly.
    pub fn quit(mut self, cmd: Option<&str>) -> ExitStatus {
        if let Some(cmd) = cmd {
            self.send(cmd);
        }
        drop(self.stdin.take());
        let deadline = Instant::now() + QUICK;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                if !status.success() {
                    self.fail(&format!("engine exited with {status}"));
                }
                return status;
            }
            if Instant::now() > deadline {
                self.fail("engine did not exit");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// What the engine wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Fails the test, showing the transcript and the engine's stderr.
    pub fn fail(&mut self, why: &str) -> ! {
        let tail: Vec<&String> = self.transcript.iter().rev().take(60).collect();
        let tail: Vec<&str> = tail.into_iter().rev().map(String::as_str).collect();
        let _ = self.child.kill();
        let stderr = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        panic!(
            "{why}\n{}--- transcript (last lines) ---\n{}\n--- stderr ---\n{stderr}",
            if self.hint.is_empty() { String::new() } else { format!("{}\n", self.hint) },
            tail.join("\n")
        );
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The position after `moves` (coordinate texts) from `start_fen` (or the
/// variant's start), panicking on an illegal move.
pub fn position_after(variant: VariantId, start_fen: Option<&str>, moves: &[&str]) -> AnyPosition {
    let mut pos = match start_fen {
        Some(f) => fen::parse(variant, f).unwrap(),
        None => AnyPosition::start(variant),
    };
    for m in moves {
        let mv = uci::parse(&pos, m).unwrap_or_else(|e| panic!("{m} in {}: {e}", fen::format(&pos)));
        pos = pos.play(mv).unwrap();
    }
    pos
}

/// Parses `text` as a legal coordinate move in `pos`, or explains why not.
pub fn legal(pos: &AnyPosition, text: &str) -> Result<Move, String> {
    let m = uci::parse(pos, text).map_err(|e| format!("'{text}' in {}: {e}", fen::format(pos)))?;
    // The engine must print the canonical form.
    let canon = uci::format(pos.variant(), m);
    if canon != text {
        return Err(format!("'{text}' is legal but not canonical ('{canon}')"));
    }
    Ok(m)
}

/// Parses `text` as a legal move in `pos` printed by the UCI protocol: it
/// must be the wire form ([`uci::format_wire`]), which is in the generic UCI
/// move alphabet.
pub fn legal_wire(pos: &AnyPosition, text: &str) -> Result<Move, String> {
    let m = uci::parse(pos, text).map_err(|e| format!("'{text}' in {}: {e}", fen::format(pos)))?;
    let canon = uci::format_wire(pos, m);
    if canon != text {
        return Err(format!("'{text}' is legal but not the wire form ('{canon}')"));
    }
    if !uci::is_wire_token(text) {
        return Err(format!("'{text}' is not in the generic UCI move alphabet"));
    }
    Ok(m)
}

/// The value following `key` in an info line.
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.iter().position(|&w| w == key).and_then(|i| words.get(i + 1).copied())
}

/// The moves after `pv` in an info line.
pub fn pv_of(line: &str) -> Vec<&str> {
    line.split_whitespace().skip_while(|&w| w != "pv").skip(1).collect()
}
