//! `menagerie-uci`: Menagerie as a tournament engine. Speaks UCI (with a
//! `UCI_Variant` option for every variant) and, after an `xboard` command,
//! XBoard/CECP protocol version 2.
//!
//! `--variants FILE` (repeatable or comma-separated; or the environment
//! variable `MENAGERIE_VARIANTS` when the flag is not given) adds the
//! variants defined in Fairy-Stockfish `variants.ini` files to those the
//! engine plays; a section it cannot play is skipped with a warning on
//! stderr naming the file, line, section and reason, and with `--strict`
//! (or `MENAGERIE_STRICT_VARIANTS=true`) stops the engine at start-up.

mod session;
mod uci;
mod xboard;

use std::io::BufRead;

/// What `--help` prints: what the program is, how to talk to it, its
/// command-line options and its protocol options.
const HELP: &str = concat!(
    "menagerie-uci ",
    env!("CARGO_PKG_VERSION"),
    r#": Menagerie as a tournament engine for chess and fairy variants
(Alpaca, Alseid and Camel and Rhino Chess, Chess960, and Fairy-Stockfish
variants.ini games such as makruk or capablanca).

It talks to a GUI or match runner on standard input and output; it does
nothing on its own. Point your GUI (cutechess, Arena, XBoard, ...) at it.

Usage: menagerie-uci [--variants FILE[,FILE...]]... [--strict]

Protocols:
  UCI            the default: send `uci` first. The variant is chosen with
                 the UCI_Variant option (every variant is listed in it).
  XBoard/CECP    send `xboard` first (protocol version 2: `protover 2`);
                 variants with `variant NAME`, as announced in
                 `feature variants=...`.

Options:
  --variants FILE[,FILE...]  also play the variants defined in these
                             Fairy-Stockfish variants.ini files (repeatable;
                             default: the MENAGERIE_VARIANTS environment
                             variable, comma-separated); a section the
                             engine cannot play is skipped with a warning
                             on stderr (file, line, section, reason)
  --strict                   such a section is an error instead (default:
                             the MENAGERIE_STRICT_VARIANTS environment
                             variable, true or 1)
  -h, --help                 print this help and exit
  -V, --version              print the version and exit
  Other arguments (some GUIs pass their own) are ignored with a warning.

UCI options (the `uci` command lists them with their ranges):
  Hash                 transposition table size in MB
  Threads              search threads
  MultiPV              best lines reported
  Clear Hash           empties the transposition table
  Ponder               accepted; `go ponder` works whatever its value
  Move Overhead        milliseconds taken off the clock for GUI/pipe lag
  UCI_LimitStrength    play at the strength UCI_Elo says
  UCI_Elo              the strength when limited
  UCI_Chess960         Chess960 castling, written king-takes-rook
  UCI_ShowWDL          info lines add win/draw/loss chances (wdl W D L, per mille)
  UCI_Variant          the variant played
  VariantPath          variants.ini files to load, as Fairy-Stockfish reads it
  StrictVariants       unplayable VariantPath sections are errors (--strict)
"#
);

/// The command line's variants files and strictness.
struct VariantArgs {
    /// The files of `--variants FILE` / `--variants=FILE` (comma-separated
    /// lists allowed), else of `MENAGERIE_VARIANTS`.
    files: Vec<String>,
    /// `--strict`, else `MENAGERIE_STRICT_VARIANTS` (`true`/`1`).
    strict: bool,
}

/// Reads the command line (`--help` and `--version` answer and exit).
fn variant_args() -> anyhow::Result<VariantArgs> {
    let mut files = Vec::new();
    let mut given = false;
    let mut strict = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = if arg == "--strict" {
            strict = Some(true);
            continue;
        } else if arg == "--variants" {
            args.next().ok_or_else(|| anyhow::anyhow!("--variants needs a FILE"))?
        } else if let Some(v) = arg.strip_prefix("--variants=") {
            v.to_string()
        } else if arg == "-h" || arg == "--help" {
            print!("{HELP}");
            std::process::exit(0);
        } else if arg == "-V" || arg == "--version" {
            println!("menagerie-uci {}", env!("CARGO_PKG_VERSION"));
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
    let strict = strict.unwrap_or_else(|| {
        std::env::var("MENAGERIE_STRICT_VARIANTS").is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes" | "on"))
    });
    Ok(VariantArgs { files, strict })
}

fn main() -> anyhow::Result<()> {
    let mut session = session::Session::new();
    let args = variant_args()?;
    session.strict_variants = args.strict;
    for file in &args.files {
        let loaded = session.variants.load_file(std::path::Path::new(file), args.strict)?;
        // stdout is the protocol's: warnings go to stderr.
        for skipped in &loaded.skipped {
            eprintln!("menagerie-uci: warning: {skipped}");
        }
        if !loaded.skipped.is_empty() {
            eprintln!(
                "menagerie-uci: warning: {file}: {} variant(s) loaded, {} skipped (--strict makes a skipped section an error)",
                loaded.added.len(),
                loaded.skipped.len()
            );
        }
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
