//! Sets `MENAGERIE_BUILD_COMMIT` for `menagerie_build_info`: the
//! `MENAGERIE_GIT_COMMIT` build variable when given (the Docker build, whose
//! context has no `.git`), else the checkout's `git rev-parse --short HEAD`,
//! else `unknown` (a source tarball, or no `git`).

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=MENAGERIE_GIT_COMMIT");
    let given = std::env::var("MENAGERIE_GIT_COMMIT").ok().filter(|c| !c.trim().is_empty());
    let commit = match given {
        Some(c) => c.trim().to_string(),
        None => {
            watch_git_head();
            git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
        }
    };
    println!("cargo:rustc-env=MENAGERIE_BUILD_COMMIT={commit}");
}

/// `git ARGS` run in this crate's directory: its trimmed output, if it
/// succeeded and printed something.
fn git(args: &[&str]) -> Option<String> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let out = Command::new("git").args(args).current_dir(dir).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// Rebuilds when HEAD moves: `HEAD` itself (a checkout), the branch it
/// points to (a commit) and `packed-refs` (a branch packed by `git gc`).
/// Paths that do not exist are not watched (cargo would rebuild every time).
fn watch_git_head() {
    let mut paths = vec![git(&["rev-parse", "--git-path", "HEAD"]), git(&["rev-parse", "--git-path", "packed-refs"])];
    if let Some(branch) = git(&["rev-parse", "--symbolic-full-name", "HEAD"]).filter(|b| b.starts_with("refs/")) {
        paths.push(git(&["rev-parse", "--git-path", &branch]));
    }
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    for path in paths.into_iter().flatten() {
        // `--git-path` answers relative to the directory git ran in.
        let full = Path::new(&dir).join(&path);
        if full.exists() {
            println!("cargo:rerun-if-changed={}", full.display());
        }
    }
}
