//! Server configuration: flags and environment variables with embedded
//! defaults (no configuration file is needed).

use clap::Parser;
use menagerie_app::{LoadError, Variants};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// How the server runs and how much work it accepts.
#[derive(Parser, Clone, Debug)]
#[command(name = "menagerie-server", version, about = "Menagerie gRPC analysis server")]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "MENAGERIE_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// CPU jobs (perft, analysis, batch streams) running at once; more are refused with RESOURCE_EXHAUSTED.
    #[arg(long, env = "MENAGERIE_MAX_JOBS", default_value_t = default_jobs())]
    pub max_jobs: usize,
    /// Job slots one client (peer IP address, or token name when authentication is on) may hold at once
    /// [default: half of --max-jobs, rounded up].
    #[arg(long, env = "MENAGERIE_MAX_JOBS_PER_CLIENT")]
    pub max_jobs_per_client: Option<usize>,
    /// Longest a job waits for a free slot (first come, first served) before RESOURCE_EXHAUSTED, in milliseconds; 0: refuse at once.
    #[arg(long, env = "MENAGERIE_QUEUE_WAIT_MS", default_value_t = 2_000)]
    pub queue_wait_ms: u64,
    /// Jobs that may wait for a slot at once [default: 4 x --max-jobs].
    #[arg(long, env = "MENAGERIE_MAX_QUEUED")]
    pub max_queued: Option<usize>,
    /// Nice value of job threads (perft, search), so that health checks and unary calls keep the CPU they need; 0: off.
    #[arg(long, env = "MENAGERIE_JOB_NICE", default_value_t = 10)]
    pub job_nice: i32,
    /// Unary calls (ValidateMove, LegalMoves) computing at once, off the async runtime; more wait their turn.
    #[arg(long, env = "MENAGERIE_MAX_UNARY", default_value_t = 2 * cores())]
    pub max_unary: usize,
    /// Longest a unary call waits for its turn before RESOURCE_EXHAUSTED, in milliseconds.
    #[arg(long, env = "MENAGERIE_UNARY_WAIT_MS", default_value_t = 5_000)]
    pub unary_wait_ms: u64,
    /// A stream holding a job slot that neither sends nor reads for this long is ended (DEADLINE_EXCEEDED), in milliseconds.
    #[arg(long, env = "MENAGERIE_STREAM_IDLE_MS", default_value_t = 30_000)]
    pub stream_idle_ms: u64,
    /// Longest one perft (or one batch job) may run, in milliseconds (longer: OUT_OF_RANGE).
    #[arg(long, env = "MENAGERIE_MAX_PERFT_MS", default_value_t = 300_000)]
    pub max_perft_ms: u64,
    /// Most nodes one perft (or one batch job) may count (more: OUT_OF_RANGE).
    #[arg(long, env = "MENAGERIE_MAX_PERFT_NODES", default_value_t = 100_000_000_000)]
    pub max_perft_nodes: u64,
    /// Threads one job may use (perft root moves, search threads).
    #[arg(long, env = "MENAGERIE_MAX_THREADS", default_value_t = cores())]
    pub max_threads: usize,
    /// Deepest perft accepted (deeper: OUT_OF_RANGE).
    #[arg(long, env = "MENAGERIE_MAX_PERFT_DEPTH", default_value_t = 8)]
    pub max_perft_depth: u32,
    /// Largest perft table a request may ask for, in MB.
    #[arg(long, env = "MENAGERIE_MAX_PERFT_HASH_MB", default_value_t = 256)]
    pub max_perft_hash_mb: u32,
    /// Deepest analysis accepted.
    #[arg(long, env = "MENAGERIE_MAX_ANALYSIS_DEPTH", default_value_t = 64)]
    pub max_analysis_depth: u32,
    /// Most nodes one analysis may search.
    #[arg(long, env = "MENAGERIE_MAX_ANALYSIS_NODES", default_value_t = 2_000_000_000)]
    pub max_analysis_nodes: u64,
    /// Longest one analysis may think, in milliseconds.
    #[arg(long, env = "MENAGERIE_MAX_ANALYSIS_MS", default_value_t = 60_000)]
    pub max_analysis_ms: u64,
    /// Thinking time when a request gives no limit, in milliseconds.
    #[arg(long, env = "MENAGERIE_DEFAULT_ANALYSIS_MS", default_value_t = 1_000)]
    pub default_analysis_ms: u64,
    /// Most principal variations per analysis.
    #[arg(long, env = "MENAGERIE_MAX_MULTIPV", default_value_t = 16)]
    pub max_multipv: u32,
    /// Transposition table per analysis, in MB.
    #[arg(long, env = "MENAGERIE_ANALYSIS_HASH_MB", default_value_t = 64)]
    pub analysis_hash_mb: usize,
    /// Most moves in a request's `position.moves`.
    #[arg(long, env = "MENAGERIE_MAX_MOVES", default_value_t = 2048)]
    pub max_moves: usize,
    /// Interval between perft progress events, in milliseconds.
    #[arg(long, env = "MENAGERIE_PROGRESS_MS", default_value_t = 500)]
    pub progress_ms: u64,
    /// Time given to in-flight requests after SIGTERM/SIGINT, in milliseconds.
    #[arg(long, env = "MENAGERIE_GRACE_MS", default_value_t = 10_000)]
    pub grace_ms: u64,
    /// Variant definitions to serve beside the built-in ones: Fairy-Stockfish's
    /// `variants.ini` format (README "Variants as data"); repeatable or
    /// comma-separated. Read at start-up: a bad file stops the server.
    #[arg(long = "variants", env = "MENAGERIE_VARIANTS", value_name = "FILE", value_delimiter = ',')]
    pub variants: Vec<PathBuf>,
    /// A --variants section Menagerie cannot play (an unknown or unsupported
    /// key or value, an unknown parent, ...) stops the server at start-up.
    /// Without it such a section is skipped with a warning in the log (file,
    /// line, section, reason) and the other sections are served.
    #[arg(long, env = "MENAGERIE_STRICT_VARIANTS")]
    pub strict_variants: bool,
    /// Most variant definitions the --variants files may add in all; a file
    /// with more stops the server at start-up (each definition costs a few KB;
    /// definitions with the same board and pieces share their move tables).
    #[arg(long, env = "MENAGERIE_MAX_VARIANTS", default_value_t = 1_000)]
    pub max_variants: usize,
    /// Network files (docs/nnue.md) replacing the embedded network of the
    /// compiled game each file's header names; repeatable or comma-separated.
    /// Read at start-up: a bad file stops the server.
    #[arg(long = "eval-file", env = "MENAGERIE_EVAL_FILES", value_name = "FILE", value_delimiter = ',')]
    pub eval_files: Vec<PathBuf>,
    /// Log format: `text` or `json`.
    #[arg(long, env = "MENAGERIE_LOG_FORMAT", default_value = "text")]
    pub log_format: String,
    /// Log filter (tracing-subscriber env-filter syntax).
    #[arg(long, env = "RUST_LOG", default_value = "info")]
    pub log: String,
    /// TLS and authentication.
    #[command(flatten)]
    pub security: crate::security::SecurityConfig,
    /// Connection limits.
    #[command(flatten)]
    pub connections: crate::connections::ConnectionConfig,
    /// Prometheus metrics.
    #[command(flatten)]
    pub metrics: crate::metrics::MetricsConfig,
    /// OpenTelemetry collector (OTLP over gRPC) to export spans to, e.g.
    /// `http://127.0.0.1:4317`; unset: no export.
    #[cfg(feature = "otel")]
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn default_jobs() -> usize {
    2 * cores() + 2
}

impl Config {
    /// The embedded defaults (what the server uses with no flags and no environment).
    pub fn defaults() -> Config {
        Config::parse_from(["menagerie-server"])
    }
    /// The job and unary-work capacity.
    pub fn capacity(&self) -> crate::jobs::Capacity {
        crate::jobs::Capacity {
            jobs: self.max_jobs,
            jobs_per_client: self.max_jobs_per_client.unwrap_or(self.max_jobs.div_ceil(2)),
            unary: self.max_unary,
            unary_wait: Duration::from_millis(self.unary_wait_ms),
            queue_wait: Duration::from_millis(self.queue_wait_ms),
            max_queued: self.max_queued.unwrap_or(4 * self.max_jobs),
            nice: self.job_nice,
        }
    }
    /// The variants to serve: the built-in ones and those of `variants`, in
    /// order (an error names the file, line and key). Unless
    /// `strict_variants`, a section that cannot be played is logged as a
    /// warning and skipped.
    pub fn load_variants(&self) -> Result<Variants, LoadError> {
        let mut variants = Variants::builtin();
        variants.limit_added(self.max_variants);
        for file in &self.variants {
            let loaded = variants.load_file(file, self.strict_variants)?;
            for skipped in &loaded.skipped {
                let (path, line) = skipped.error.location();
                tracing::warn!(
                    file = path,
                    line,
                    section = skipped.name.as_str(),
                    reason = skipped.error.reason(),
                    "variant skipped: {skipped}"
                );
            }
            if !loaded.skipped.is_empty() {
                tracing::warn!(
                    file = %file.display(),
                    loaded = loaded.added.len(),
                    skipped = loaded.skipped.len(),
                    "some variants were skipped (--strict-variants makes a skipped section an error)"
                );
            }
        }
        Ok(variants)
    }
    /// How long a stream may sit idle holding a slot.
    pub fn stream_idle(&self) -> Duration {
        Duration::from_millis(self.stream_idle_ms.max(1))
    }
    /// Interval between perft progress events.
    pub fn progress_interval(&self) -> Duration {
        Duration::from_millis(self.progress_ms.max(10))
    }
}
