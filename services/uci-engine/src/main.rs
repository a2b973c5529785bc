//! `menagerie-uci`: Menagerie as a tournament engine. Speaks UCI (with a
//! `UCI_Variant` option for every variant) and, after an `xboard` command,
//! XBoard/CECP protocol version 2.

mod session;
mod uci;
mod xboard;

use std::io::BufRead;

fn main() {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines().map_while(Result::ok);
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
