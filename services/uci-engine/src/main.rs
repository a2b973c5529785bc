//! `menagerie-uci`: Menagerie as a tournament engine. Speaks UCI (with a
//! `UCI_Variant` option for every variant) and, after an `xboard` command,
//! XBoard/CECP protocol version 2.

mod session;
mod uci;
mod xboard;

use std::io::BufRead;

fn main() {
    // Lines are read as bytes and decoded leniently: a line that is not
    // UTF-8 is answered as an unknown command instead of ending the input.
    let mut stdin = std::io::stdin().lock();
    let mut lines = std::iter::from_fn(move || {
        let mut buf = Vec::new();
        match stdin.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(String::from_utf8_lossy(&buf).into_owned()),
        }
    });
    let mut session = session::Session::new();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "xboard" {
            xboard::run(&mut session, &mut lines);
            return;
        }
        if !uci::handle(&mut session, line) {
            break;
        }
    }
    session.stop_and_wait();
}
