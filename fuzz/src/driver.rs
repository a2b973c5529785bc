//! The fuzz loop: replay the corpus, then mutate; catch panics on any
//! thread, time inputs out, save what fails.
//!
//! There is no coverage guidance. Instead, inputs that got past parsing
//! (the target returned `true`) go into a bounded pool that later
//! mutations start from as often as from the seed corpus, so mutations
//! stack up on inputs that still reach the deep checks.

use crate::mutate::Mutator;
use crate::rng::{Rng, fnv1a};
use crate::targets::Target;
use std::backtrace::Backtrace;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

/// How a run goes.
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop after this long (besides `runs`); `None`: no time limit.
    pub seconds: Option<f64>,
    /// Stop after this many inputs, seeds included; `None`: no count limit.
    pub runs: Option<u64>,
    /// PRNG seed.
    pub seed: u64,
    /// Directories (or files) of seed inputs; the built-in seeds are used when they hold none.
    pub corpus: Vec<PathBuf>,
    /// Where failing inputs are written (`<dir>/crash-<hash>`, `timeout-<hash>`).
    pub artifacts: PathBuf,
    /// Largest generated input, in bytes.
    pub max_len: usize,
    /// One input running longer than this is a finding (the process exits).
    pub timeout: Duration,
    /// Record every distinct panic and go on, instead of stopping at the first.
    pub keep_going: bool,
    /// Interval between progress lines on stderr (`None`: quiet).
    pub status_every: Option<Duration>,
}

/// A failing input.
#[derive(Clone, Debug)]
pub struct Crash {
    /// The input.
    pub input: Vec<u8>,
    /// Panic message with its location and thread.
    pub message: String,
    /// Backtrace captured in the panic hook.
    pub backtrace: String,
    /// Where the input was saved, if it was.
    pub path: Option<PathBuf>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Inputs run, seeds included.
    pub runs: u64,
    /// Of those, seed inputs replayed.
    pub seeds: u64,
    /// Inputs that got past parsing.
    pub accepted: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Distinct failures (at most one unless `keep_going`).
    pub crashes: Vec<Crash>,
    /// Failing inputs, repeats of a known failure included.
    pub failures: u64,
}

impl Summary {
    /// Inputs per second.
    pub fn rate(&self) -> f64 {
        self.runs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

struct PanicRecord {
    message: String,
    backtrace: String,
}

static PANICKED: AtomicBool = AtomicBool::new(false);
static PANIC: Mutex<Option<PanicRecord>> = Mutex::new(None);
static EPOCH: OnceLock<Instant> = OnceLock::new();
/// Milliseconds since [`EPOCH`] (plus one) when the current input started; 0: idle.
static STARTED: AtomicU64 = AtomicU64::new(0);
static CURRENT: Mutex<Vec<u8>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Installs (once) a quiet panic hook that records the first panic
/// (message, location, thread, backtrace) of any thread instead of printing it.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(claim_panic_hook);
}

/// Installs the recording hook again, replacing whatever hook code under
/// test installed (the analysis server sets its own when a service is built).
pub fn claim_panic_hook() {
    panic::set_hook(Box::new(record_panic));
}

fn record_panic(info: &panic::PanicHookInfo<'_>) {
    let payload = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string panic payload)".into());
    let location = info.location().map_or_else(String::new, |l| format!(" at {l}"));
    let thread = std::thread::current().name().unwrap_or("unnamed").to_string();
    let mut slot = lock(&PANIC);
    if slot.is_none() {
        *slot = Some(PanicRecord {
            message: format!("panicked on thread '{thread}'{location}: {payload}"),
            backtrace: Backtrace::force_capture().to_string(),
        });
    }
    PANICKED.store(true, Ordering::SeqCst);
}

fn now_ms() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1
}

/// Starts the watchdog: an input running longer than `timeout` is saved as
/// `timeout-<hash>` in `artifacts` and the process exits with code 70.
fn start_watchdog(timeout: Duration, artifacts: PathBuf) {
    static ONCE: Once = Once::new();
    ONCE.call_once(move || {
        let limit = timeout.as_millis() as u64;
        let spawned = std::thread::Builder::new().name("fuzz-watchdog".into()).spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(100));
                let t = STARTED.load(Ordering::SeqCst);
                if t != 0 && now_ms().saturating_sub(t) > limit {
                    let input = lock(&CURRENT).clone();
                    let path = save(&artifacts, "timeout", &input, &format!("no return within {timeout:?}"), "");
                    eprintln!("TIMEOUT: one input ran longer than {timeout:?}; saved to {}", show(&path));
                    std::process::exit(70);
                }
            }
        });
        if spawned.is_err() {
            eprintln!("warning: no watchdog thread; hangs will not be detected");
        }
    });
}

fn show(p: &Option<PathBuf>) -> String {
    p.as_ref().map_or_else(|| "(not saved)".into(), |p| p.display().to_string())
}

/// Writes `input` as `<dir>/<kind>-<hash>` and the report beside it as `.txt`.
fn save(dir: &Path, kind: &str, input: &[u8], message: &str, backtrace: &str) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!("{kind}-{:016x}", fnv1a(input)));
    std::fs::write(&path, input).ok()?;
    let report = format!("{message}\n\ninput (lossy UTF-8): {:?}\n\n{backtrace}", String::from_utf8_lossy(input));
    std::fs::write(path.with_extension("txt"), report).ok()?;
    Some(path)
}

/// Runs one input under `catch_unwind`; `Err` with the panic if it (or any
/// thread while it ran) panicked.
pub fn run_one(target: &Target, input: &[u8]) -> Result<bool, (String, String)> {
    {
        let mut cur = lock(&CURRENT);
        cur.clear();
        cur.extend_from_slice(input);
    }
    STARTED.store(now_ms(), Ordering::SeqCst);
    let r = panic::catch_unwind(AssertUnwindSafe(|| (target.run)(input)));
    STARTED.store(0, Ordering::SeqCst);
    let hooked = PANICKED.swap(false, Ordering::SeqCst);
    let record = if hooked || r.is_err() { lock(&PANIC).take() } else { None };
    match (r, record) {
        (_, Some(p)) => Err((p.message, p.backtrace)),
        (Ok(accepted), None) => Ok(accepted),
        (Err(payload), None) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(non-string panic payload)".into());
            Err((format!("panicked (not recorded by the harness's hook): {msg}"), String::new()))
        }
    }
}

/// Reads every file in the corpus directories (sorted, recursively one level).
pub fn load_corpus(paths: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_file() {
            files.push(p.clone());
        } else if let Ok(rd) = std::fs::read_dir(p) {
            files.extend(rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    files.sort();
    files.iter().filter_map(|f| std::fs::read(f).ok()).collect()
}

/// Replays the corpus, then mutates until `runs` or `seconds` is reached
/// (or the first panic, unless `keep_going`).
pub fn fuzz(target: &Target, opts: &Options) -> Summary {
    install_panic_hook();
    start_watchdog(opts.timeout, opts.artifacts.clone());
    let t0 = Instant::now();
    let mut seeds = load_corpus(&opts.corpus);
    if seeds.is_empty() {
        seeds = (target.seeds)().into_iter().map(|(_, d)| d).collect();
    }
    if seeds.is_empty() {
        seeds.push(Vec::new());
    }
    let mutator = Mutator::new(target.dictionary, opts.max_len);
    let mut rng = Rng::new(opts.seed);
    let mut sum = Summary::default();
    let mut seen_locations = Vec::new();
    let mut pool: Vec<Vec<u8>> = Vec::new();
    const POOL: usize = 4096;
    let mut last_status = Instant::now();
    let deadline = opts.seconds.map(|s| t0 + Duration::from_secs_f64(s.max(0.0)));
    let mut i = 0usize;
    loop {
        if opts.runs.is_some_and(|n| sum.runs >= n) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let input = if i < seeds.len() {
            sum.seeds += 1;
            seeds[i].clone()
        } else {
            let base = if !pool.is_empty() && rng.one_in(2) { rng.pick(&pool) } else { rng.pick(&seeds) };
            let mut data = base.cloned().unwrap_or_default();
            match target.mutate {
                Some(custom) if !rng.one_in(4) => custom(&mut data, &mut rng, &mutator, &seeds),
                _ => mutator.mutate(&mut data, &mut rng, &seeds),
            }
            data
        };
        i += 1;
        sum.runs += 1;
        match run_one(target, &input) {
            Ok(true) => {
                sum.accepted += 1;
                if i > seeds.len() {
                    if pool.len() < POOL {
                        pool.push(input);
                    } else {
                        let j = rng.below(POOL);
                        pool[j] = input;
                    }
                }
            }
            Ok(false) => {}
            Err((message, backtrace)) => {
                sum.failures += 1;
                let location = crash_key(&message);
                let new = !seen_locations.contains(&location);
                if new {
                    seen_locations.push(location);
                    let path = save(&opts.artifacts, "crash", &input, &message, &backtrace);
                    eprintln!(
                        "CRASH in {}: {message}\n  input {:?}\n  saved to {}",
                        target.name,
                        lossy(&input),
                        show(&path)
                    );
                    sum.crashes.push(Crash { input, message, backtrace, path });
                }
                if !opts.keep_going {
                    break;
                }
            }
        }
        if let Some(every) = opts.status_every
            && last_status.elapsed() >= every
        {
            last_status = Instant::now();
            let secs = t0.elapsed().as_secs_f64();
            eprintln!(
                "{}: {} inputs, {:.0}/s, {:.1}% accepted, pool {}, {} failing ({} distinct), {:.0} s",
                target.name,
                sum.runs,
                sum.runs as f64 / secs.max(1e-9),
                100.0 * sum.accepted as f64 / sum.runs.max(1) as f64,
                pool.len(),
                sum.failures,
                sum.crashes.len(),
                secs
            );
        }
    }
    sum.elapsed = t0.elapsed();
    sum
}

/// What makes two panics the same finding: where it panicked (whichever
/// thread it was on) and the message's first line up to the first quote,
/// without digits (quoted FENs and moves, counts and hashes vary).
fn crash_key(message: &str) -> String {
    let at = message.split_once(" at ").map_or(message, |(_, rest)| rest);
    let first = at.lines().next().unwrap_or("");
    let head = first.split('"').next().unwrap_or("");
    head.chars().filter(|c| !c.is_ascii_digit()).collect()
}

fn lossy(input: &[u8]) -> String {
    let s = String::from_utf8_lossy(input);
    if s.chars().count() > 300 {
        format!("{}... ({} bytes)", s.chars().take(300).collect::<String>(), input.len())
    } else {
        s.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panicking(data: &[u8]) -> bool {
        assert!(!data.starts_with(b"boom"), "boom");
        true
    }

    #[test]
    fn crash_keys_ignore_threads_quotes_and_numbers() {
        let a = "panicked on thread 'main' at a.rs:1:2: alpaca: hash wrong after \"e2e4\" left 12";
        let b = "panicked on thread 'job' at a.rs:1:2: alpaca: hash wrong after \"g1f3\" left 99";
        let c = "panicked on thread 'main' at a.rs:1:2: chess: hash wrong after \"e2e4\"";
        assert_eq!(crash_key(a), crash_key(b));
        assert_ne!(crash_key(a), crash_key(c));
    }

    #[test]
    fn a_panic_is_caught_recorded_and_saved() {
        let target = Target { name: "t", run: panicking, dictionary: &["boom"], mutate: None, seeds: Vec::new };
        let dir = std::env::temp_dir().join(format!("menagerie-fuzz-test-{}", std::process::id()));
        let opts = Options {
            seconds: Some(20.0),
            runs: Some(1_000_000),
            seed: 1,
            corpus: vec![],
            artifacts: dir.clone(),
            max_len: 64,
            timeout: Duration::from_secs(60),
            keep_going: false,
            status_every: None,
        };
        let sum = fuzz(&target, &opts);
        assert_eq!(sum.crashes.len(), 1);
        let crash = &sum.crashes[0];
        assert!(crash.message.contains("boom"), "{}", crash.message);
        let saved = crash.path.as_ref().map(std::fs::read);
        assert!(matches!(saved, Some(Ok(ref d)) if d == &crash.input));
        let _ = std::fs::remove_dir_all(dir);
    }
}
