//! TLS, mutual TLS and bearer-token authentication for the server's listener.

/// Transport security and authentication settings.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SecurityConfig {}
