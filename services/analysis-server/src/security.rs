//! TLS, mutual TLS and bearer-token authentication for the server's listener.
//!
//! - TLS: `--tls-cert` and `--tls-key` (PEM) make the listener speak TLS
//!   only; `--tls-client-ca` also requires every client to present a
//!   certificate signed by that CA (mutual TLS).
//! - Tokens: `--auth-tokens-file` (one token per line, `name:token` or a
//!   bare token) and/or `MENAGERIE_AUTH_TOKENS` (the same entries,
//!   comma-separated). A call must then carry `authorization: Bearer
//!   TOKEN`; a missing or unknown token is refused with `UNAUTHENTICATED`.
//!   Tokens are compared in constant time. The token's name becomes the
//!   request's [`ClientId`], which per-client limits key on.
//! - Health (`grpc.health.v1`) stays open by default so that probes need no
//!   token (`--auth-exempt-health false` closes it); reflection needs a
//!   token unless `--auth-exempt-reflection true`.
//! - `--health-listen` serves health alone in plaintext on another address,
//!   for probes that cannot speak TLS (the kubelet's gRPC probe).

use crate::jobs::ClientId;
use http::{Request, Response};
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use subtle::ConstantTimeEq;
use tonic::transport::{Certificate, Identity, ServerTlsConfig};

/// Transport security and authentication settings.
#[derive(clap::Args, Clone)]
pub struct SecurityConfig {
    /// PEM certificate chain the server presents; with --tls-key, the
    /// listener speaks TLS only.
    #[arg(long, env = "MENAGERIE_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, env = "MENAGERIE_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// PEM CA certificate(s): clients must present a certificate signed by
    /// one of them (mutual TLS). Needs --tls-cert.
    #[arg(long, env = "MENAGERIE_TLS_CLIENT_CA", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
    /// File of accepted bearer tokens, one per line: `name:token`, or a bare
    /// token (named `token-LINE`); blank lines and `#` comments are skipped.
    /// Calls without a known token are refused with UNAUTHENTICATED.
    #[arg(long, env = "MENAGERIE_AUTH_TOKENS_FILE")]
    pub auth_tokens_file: Option<PathBuf>,
    /// Accepted bearer tokens, comma-separated, in the file's forms (bare
    /// tokens are named `env-N`). Prefer the environment variable to the
    /// flag: command lines are visible to other users.
    #[arg(long, env = "MENAGERIE_AUTH_TOKENS", hide_env_values = true, value_delimiter = ',')]
    pub auth_tokens: Vec<String>,
    /// Serve grpc.health.v1 without a token (probes and load balancers).
    #[arg(long, env = "MENAGERIE_AUTH_EXEMPT_HEALTH", default_value_t = true, action = clap::ArgAction::Set)]
    pub auth_exempt_health: bool,
    /// Serve reflection without a token.
    #[arg(long, env = "MENAGERIE_AUTH_EXEMPT_REFLECTION", default_value_t = false, action = clap::ArgAction::Set)]
    pub auth_exempt_reflection: bool,
    /// Also serve grpc.health.v1 alone, in plaintext and without a token,
    /// on this address (for probes that cannot speak TLS); off by default.
    #[arg(long, env = "MENAGERIE_HEALTH_LISTEN")]
    pub health_listen: Option<SocketAddr>,
}

impl fmt::Debug for SecurityConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Tokens must never reach a log: only how many there are.
        f.debug_struct("SecurityConfig")
            .field("tls_cert", &self.tls_cert)
            .field("tls_key", &self.tls_key)
            .field("tls_client_ca", &self.tls_client_ca)
            .field("auth_tokens_file", &self.auth_tokens_file)
            .field("auth_tokens", &format_args!("[{} redacted]", self.auth_tokens.len()))
            .field("auth_exempt_health", &self.auth_exempt_health)
            .field("auth_exempt_reflection", &self.auth_exempt_reflection)
            .field("health_listen", &self.health_listen)
            .finish()
    }
}

impl Default for SecurityConfig {
    /// No TLS, no tokens, health exempt: what the flags default to.
    fn default() -> SecurityConfig {
        SecurityConfig {
            tls_cert: None,
            tls_key: None,
            tls_client_ca: None,
            auth_tokens_file: None,
            auth_tokens: Vec::new(),
            auth_exempt_health: true,
            auth_exempt_reflection: false,
            health_listen: None,
        }
    }
}

/// Why the security settings could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    /// A file named by a flag could not be read.
    #[error("cannot read {what} {path}: {source}")]
    Read {
        /// Which setting named the file.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A token entry is malformed.
    #[error("{origin}: {why}")]
    BadToken {
        /// Where the entry is (`FILE line N`, `MENAGERIE_AUTH_TOKENS entry N`).
        origin: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A token file was given but holds no token.
    #[error("{0}: no tokens")]
    NoTokens(String),
}

/// Loaded security settings: what [`crate::serve_with`] applies.
#[derive(Clone, Debug, Default)]
pub struct Security {
    /// The listener's TLS settings; `None`: plaintext.
    pub tls: Option<ServerTlsConfig>,
    /// Whether clients must present certificates (mutual TLS).
    pub mutual_tls: bool,
    /// The authentication layer (passes everything when no tokens are set).
    pub auth: AuthLayer,
}

impl SecurityConfig {
    /// Reads the certificate, key, CA and token files.
    pub fn load(&self) -> Result<Security, SecurityError> {
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => {
                let identity = Identity::from_pem(read("--tls-cert", cert)?, read("--tls-key", key)?);
                let mut tls = ServerTlsConfig::new().identity(identity);
                if let Some(ca) = &self.tls_client_ca {
                    tls = tls.client_ca_root(Certificate::from_pem(read("--tls-client-ca", ca)?));
                }
                Some(tls)
            }
            _ => None,
        };
        let mut tokens = Tokens::default();
        if let Some(path) = &self.auth_tokens_file {
            let text = String::from_utf8(read("--auth-tokens-file", path)?)
                .map_err(|_| SecurityError::BadToken { origin: path.display().to_string(), why: "not UTF-8 text" })?;
            let before = tokens.entries.len();
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                tokens.add(line, || format!("token-{}", i + 1), || format!("{} line {}", path.display(), i + 1))?;
            }
            if tokens.entries.len() == before {
                return Err(SecurityError::NoTokens(path.display().to_string()));
            }
        }
        for (i, entry) in self.auth_tokens.iter().enumerate() {
            let entry = entry.trim();
            if !entry.is_empty() {
                tokens.add(entry, || format!("env-{}", i + 1), || format!("MENAGERIE_AUTH_TOKENS entry {}", i + 1))?;
            }
        }
        let auth = AuthLayer {
            tokens: (!tokens.entries.is_empty()).then(|| Arc::new(tokens)),
            exempt_health: self.auth_exempt_health,
            exempt_reflection: self.auth_exempt_reflection,
        };
        Ok(Security { tls, mutual_tls: self.tls_client_ca.is_some(), auth })
    }
}

fn read(what: &'static str, path: &Path) -> Result<Vec<u8>, SecurityError> {
    std::fs::read(path).map_err(|source| SecurityError::Read { what, path: path.to_path_buf(), source })
}

/// Warnings for a listener at `addr` that is reachable beyond this machine
/// without TLS or without authentication (none on loopback).
pub fn exposure_warnings(addr: SocketAddr, security: &Security) -> Vec<String> {
    if addr.ip().is_loopback() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if security.tls.is_none() {
        out.push(format!(
            "listening on {addr} beyond loopback without TLS: calls and tokens travel in clear text (set --tls-cert and --tls-key)"
        ));
    }
    if !security.auth.enabled() && !security.mutual_tls {
        out.push(format!(
            "listening on {addr} beyond loopback without authentication: anyone who can connect may use the server (set --auth-tokens-file or --tls-client-ca)"
        ));
    }
    out
}

/// Accepted bearer tokens with their names.
#[derive(Default)]
struct Tokens {
    entries: Vec<(String, Vec<u8>)>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names only: tokens must never reach a log.
        f.debug_list().entries(self.entries.iter().map(|(name, _)| name)).finish()
    }
}

impl Tokens {
    /// Adds `entry` (`name:token` or a bare token named `default_name()`).
    fn add(
        &mut self,
        entry: &str,
        default_name: impl FnOnce() -> String,
        origin: impl Fn() -> String,
    ) -> Result<(), SecurityError> {
        let bad = |why| SecurityError::BadToken { origin: origin(), why };
        let (name, token) = match entry.split_once(':') {
            Some((name, token)) => (name.trim().to_string(), token.trim()),
            None => (default_name(), entry),
        };
        if name.is_empty() {
            return Err(bad("empty token name"));
        }
        if token.is_empty() {
            return Err(bad("empty token"));
        }
        // What can travel in an `authorization` header after `Bearer `.
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(bad("a token must be printable ASCII without spaces"));
        }
        if self.entries.iter().any(|(_, t)| t == token.as_bytes()) {
            return Err(bad("duplicate token"));
        }
        if self.entries.iter().any(|(n, _)| *n == name) {
            return Err(bad("duplicate token name"));
        }
        self.entries.push((name, token.as_bytes().to_vec()));
        Ok(())
    }

    /// The name of `presented`, if it is an accepted token. Every token is
    /// compared, each in constant time.
    fn find(&self, presented: &[u8]) -> Option<&str> {
        let mut found = None;
        for (name, token) in &self.entries {
            if bool::from(token.as_slice().ct_eq(presented)) {
                found = Some(name.as_str());
            }
        }
        found
    }
}

/// A tower layer refusing calls without an accepted bearer token
/// (`UNAUTHENTICATED`) and tagging accepted ones with their [`ClientId`].
#[derive(Clone, Debug)]
pub struct AuthLayer {
    tokens: Option<Arc<Tokens>>,
    exempt_health: bool,
    exempt_reflection: bool,
}

impl Default for AuthLayer {
    /// No tokens: every call passes.
    fn default() -> AuthLayer {
        AuthLayer { tokens: None, exempt_health: true, exempt_reflection: false }
    }
}

impl AuthLayer {
    /// Whether calls must carry a token.
    pub fn enabled(&self) -> bool {
        self.tokens.is_some()
    }

    fn exempt(&self, path: &str) -> bool {
        (self.exempt_health && path.starts_with("/grpc.health.v1.Health/"))
            || (self.exempt_reflection
                && (path.starts_with("/grpc.reflection.v1.ServerReflection/")
                    || path.starts_with("/grpc.reflection.v1alpha.ServerReflection/")))
    }

    /// The client named by the request's bearer token, or why it is refused.
    fn authenticate<B>(&self, tokens: &Tokens, req: &Request<B>) -> Result<ClientId, tonic::Status> {
        let header = req
            .headers()
            .get(http::header::AUTHORIZATION)
            .ok_or_else(|| tonic::Status::unauthenticated("missing bearer token (authorization metadata)"))?;
        let presented = header
            .as_bytes()
            .strip_prefix(b"Bearer ")
            .or_else(|| header.as_bytes().strip_prefix(b"bearer "))
            .ok_or_else(|| tonic::Status::unauthenticated("authorization is not a bearer token"))?;
        let presented = presented.trim_ascii();
        tokens
            .find(presented)
            .map(|name| ClientId(name.to_string()))
            .ok_or_else(|| tonic::Status::unauthenticated("unknown bearer token"))
    }
}

impl<S> tower_layer::Layer<S> for AuthLayer {
    type Service = Auth<S>;
    fn layer(&self, inner: S) -> Auth<S> {
        Auth { inner, policy: self.clone() }
    }
}

/// The service made by [`AuthLayer`].
#[derive(Clone, Debug)]
pub struct Auth<S> {
    inner: S,
    policy: AuthLayer,
}

impl<S, B> tower_service::Service<Request<B>> for Auth<S>
where
    S: tower_service::Service<Request<B>, Response = Response<tonic::body::Body>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = AuthFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        if let Some(tokens) = &self.policy.tokens {
            if !self.policy.exempt(req.uri().path()) {
                match self.policy.authenticate(tokens, &req) {
                    Ok(client) => {
                        // For the access log (the observe layer's slot).
                        if let Some(slot) = req.extensions().get::<crate::metrics::CallClient>() {
                            slot.set(&client.0);
                        }
                        req.extensions_mut().insert(client);
                    }
                    Err(status) => return AuthFuture { fut: None, refused: Some(status.into_http()) },
                }
            }
        }
        AuthFuture { fut: Some(self.inner.call(req)), refused: None }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Auth`]: the inner service's, or a refusal.
    pub struct AuthFuture<F> {
        #[pin]
        fut: Option<F>,
        refused: Option<Response<tonic::body::Body>>,
    }
}

impl<F, E> Future for AuthFuture<F>
where
    F: Future<Output = Result<Response<tonic::body::Body>, E>>,
{
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        if let Some(response) = this.refused.take() {
            return Poll::Ready(Ok(response));
        }
        match this.fut.as_pin_mut() {
            Some(fut) => fut.poll(cx),
            // A refusal already returned: never resolves twice.
            None => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(entries: &[&str]) -> Result<Tokens, SecurityError> {
        let mut t = Tokens::default();
        for (i, e) in entries.iter().enumerate() {
            t.add(e, || format!("token-{}", i + 1), || format!("entry {}", i + 1))?;
        }
        Ok(t)
    }

    #[test]
    fn tokens_are_named_and_found() {
        let t = tokens(&["alice:s3cret", "bare-token"]).expect("valid tokens");
        assert_eq!(t.find(b"s3cret"), Some("alice"));
        assert_eq!(t.find(b"bare-token"), Some("token-2"));
        assert_eq!(t.find(b"s3cre"), None);
        assert_eq!(t.find(b""), None);
        assert_eq!(format!("{t:?}"), r#"["alice", "token-2"]"#);
    }

    #[test]
    fn debug_output_hides_tokens() {
        let config = SecurityConfig { auth_tokens: vec!["alice:s3cret".into()], ..SecurityConfig::default() };
        let text = format!("{config:?}");
        assert!(!text.contains("s3cret") && text.contains("1 redacted"), "{text}");
        let loaded = format!("{:?}", config.load().expect("valid tokens"));
        assert!(!loaded.contains("s3cret") && loaded.contains("alice"), "{loaded}");
    }

    #[test]
    fn bad_tokens_are_refused() {
        assert!(tokens(&["a:"]).is_err());
        assert!(tokens(&[":x"]).is_err());
        assert!(tokens(&["a:has space"]).is_err());
        assert!(tokens(&["a:x", "b:x"]).is_err());
        assert!(tokens(&["a:x", "a:y"]).is_err());
    }

    #[test]
    fn warnings_only_beyond_loopback() {
        let open = Security::default();
        assert!(exposure_warnings("127.0.0.1:1".parse().expect("addr"), &open).is_empty());
        assert!(exposure_warnings("[::1]:1".parse().expect("addr"), &open).is_empty());
        assert_eq!(exposure_warnings("0.0.0.0:1".parse().expect("addr"), &open).len(), 2);
        let tls_only = Security { tls: Some(ServerTlsConfig::new()), ..Security::default() };
        assert_eq!(exposure_warnings("0.0.0.0:1".parse().expect("addr"), &tls_only).len(), 1);
    }
}
