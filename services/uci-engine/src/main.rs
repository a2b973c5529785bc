//! `menagerie-uci`: Menagerie as a tournament engine. Speaks UCI (with a
//! `UCI_Variant` option for every variant) and, after an `xboard` command,
//! XBoard/CECP protocol version 2.
//!
//! `--variants FILE` (repeatable or comma-separated; or the environment
//! variable `MENAGERIE_VARIANTS` when the flag is not given) adds the
//! variants defined in Fairy-Stockfish `variants.ini` files to those the
//! engine plays; a file that cannot be used stops the engine at start-up
//! with a message naming the file, line and key.

mod session;
mod uci;
mod xboard;

use std::io::BufRead;

/// The variants files named by `--variants FILE` / `--variants=FILE`
/// (comma-separated lists allowed), else by `MENAGERIE_VARIANTS`.
fn variant_files() -> anyhow::Result<Vec<String>> {
    let mut files = Vec::new();
    let mut given = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = if arg == "--variants" {
            args.next().ok_or_else(|| anyhow::anyhow!("--variants needs a FILE"))?
        } else if let Some(v) = arg.strip_prefix("--variants=") {
            v.to_string()
        } else if arg == "-h" || arg == "--help" {
            println!("usage: menagerie-uci [--variants FILE[,FILE...]]...  (then UCI or XBoard on stdin)");
            std::process::exit(0);
        } else {
            // GUIs may pass arguments of their own: they are not an error.
            eprintln!("menagerie-uci: ignoring unknown argument '{arg}'");
            continue;
        };
        given = true;
        files.extend(value.split(',').filter(|f| !f.is_empty()).map(str::to_string));
    }
    if !given && let Ok(env) = std::env::var("MENAGERIE_VARIANTS") {
        files.extend(env.split(',').filter(|f| !f.is_empty()).map(str::to_string));
    }
    Ok(files)
}

fn main() -> anyhow::Result<()> {
    let mut session = session::Session::new();
    for file in variant_files()? {
        session.variants.load_file(std::path::Path::new(&file))?;
    }
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
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "xboard" {
            xboard::run(&mut session, &mut lines);
            return Ok(());
        }
        if !uci::handle(&mut session, line) {
            break;
        }
    }
    session.stop_and_wait();
    Ok(())
}
