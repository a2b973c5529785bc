#![allow(clippy::unwrap_used)]
//! TLS, mutual TLS and bearer tokens end to end: certificates generated
//! here (rcgen), a real server (`serve_with`) on a loopback port, and real
//! tonic clients that must be refused or served.

use menagerie_analysis_server::jobs::ClientId;
use menagerie_analysis_server::security::{Security, SecurityConfig};
use menagerie_analysis_server::{AnalysisApi, Config, ServeOptions, serve_with};
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::oneshot;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};
use tonic::{Code, Request};

/// A certificate authority that issues server and client certificates.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate and its private key, in PEM.
struct Issued {
    cert: String,
    key: String,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        Ca { issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap() }
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }

    fn issue(&self, names: &[&str], usage: ExtendedKeyUsagePurpose) -> Issued {
        let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        params.distinguished_name.push(DnType::CommonName, names.first().copied().unwrap_or("client"));
        params.extended_key_usages = vec![usage];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Issued { cert: cert.pem(), key: key.serialize_pem() }
    }

    fn server(&self) -> Issued {
        self.issue(&["localhost", "127.0.0.1"], ExtendedKeyUsagePurpose::ServerAuth)
    }

    fn client(&self) -> Issued {
        self.issue(&["client.example"], ExtendedKeyUsagePurpose::ClientAuth)
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A server on a loopback port, stopped when dropped.
struct TestServer {
    addr: SocketAddr,
    _shutdown: oneshot::Sender<()>,
}

async fn start(security: Security) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = Config::defaults();
    config.max_jobs = 4;
    config.max_threads = 1;
    let service = AnalysisApi::new(config);
    let (tx, rx) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = rx.await;
    };
    let options = ServeOptions { security, ..ServeOptions::default() };
    tokio::spawn(serve_with(service, listener, options, shutdown, Duration::from_secs(1)));
    TestServer { addr, _shutdown: tx }
}

/// A TLS server (certificate for localhost and 127.0.0.1 from `ca`); with
/// `client_ca`, clients must present a certificate from it.
async fn start_tls(dir: &Path, ca: &Ca, client_ca: Option<&Ca>, tokens: &[&str]) -> TestServer {
    let server = ca.server();
    let config = SecurityConfig {
        tls_cert: Some(write(dir, "server.pem", &server.cert)),
        tls_key: Some(write(dir, "server.key", &server.key)),
        tls_client_ca: client_ca.map(|c| write(dir, "client-ca.pem", &c.pem())),
        auth_tokens: tokens.iter().map(|t| t.to_string()).collect(),
        ..SecurityConfig::default()
    };
    start(config.load().unwrap()).await
}

async fn connect(url: String, tls: Option<ClientTlsConfig>) -> Result<Channel, tonic::transport::Error> {
    let mut endpoint = Channel::from_shared(url).unwrap().connect_timeout(Duration::from_secs(5));
    if let Some(tls) = tls {
        endpoint = endpoint.tls_config(tls)?;
    }
    endpoint.connect().await
}

fn trusting(ca: &Ca) -> ClientTlsConfig {
    ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca.pem())).domain_name("localhost")
}

/// Whether a client connecting to `url` with `tls` is refused: it cannot
/// connect, or its call fails.
async fn is_refused(url: String, tls: Option<ClientTlsConfig>) -> bool {
    match connect(url, tls).await {
        Err(_) => true,
        Ok(channel) => list_variants(channel, None).await.is_err(),
    }
}

async fn list_variants(channel: Channel, token: Option<&str>) -> Result<usize, tonic::Status> {
    let mut req = Request::new(pb::ListVariantsRequest {});
    if let Some(t) = token {
        req.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
    }
    Ok(AnalysisServiceClient::new(channel).list_variants(req).await?.into_inner().variants.len())
}

#[tokio::test]
async fn tls_serves_a_client_trusting_the_ca_and_refuses_plaintext() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("test CA");
    let server = start_tls(dir.path(), &ca, None, &[]).await;
    // The right CA, by IP address in the URL and by the name in the certificate.
    let channel = connect(format!("https://{}", server.addr), Some(trusting(&ca))).await.unwrap();
    assert!(list_variants(channel, None).await.unwrap() >= 7);
    let by_name = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca.pem()));
    let channel = connect(format!("https://localhost:{}", server.addr.port()), Some(by_name)).await.unwrap();
    assert!(list_variants(channel, None).await.is_ok());
    // A plaintext client gets no answer.
    assert!(is_refused(format!("http://{}", server.addr), None).await, "a plaintext client was served by a TLS server");
}

#[tokio::test]
async fn tls_refuses_a_client_trusting_another_ca() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("server CA");
    let other = Ca::new("another CA");
    let server = start_tls(dir.path(), &ca, None, &[]).await;
    assert!(
        is_refused(format!("https://{}", server.addr), Some(trusting(&other))).await,
        "a certificate from an untrusted CA was accepted"
    );
    // The host name is checked too: the certificate does not name this one.
    let wrong_name = trusting(&ca).domain_name("menagerie.example");
    assert!(
        is_refused(format!("https://{}", server.addr), Some(wrong_name)).await,
        "a certificate for another name was accepted"
    );
}

#[tokio::test]
async fn mutual_tls_needs_a_client_certificate_from_the_client_ca() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("server CA");
    let client_ca = Ca::new("client CA");
    let server = start_tls(dir.path(), &ca, Some(&client_ca), &[]).await;
    let url = format!("https://{}", server.addr);
    // No client certificate.
    assert!(is_refused(url.clone(), Some(trusting(&ca))).await, "mutual TLS served a client without a certificate");
    // A client certificate from a CA the server does not trust.
    let stranger = Ca::new("stranger CA").client();
    let refused =
        match connect(url.clone(), Some(trusting(&ca).identity(Identity::from_pem(stranger.cert, stranger.key)))).await
        {
            Err(_) => true,
            Ok(channel) => list_variants(channel, None).await.is_err(),
        };
    assert!(refused, "mutual TLS served a client certificate from an untrusted CA");
    // The right client certificate.
    let client = client_ca.client();
    let tls = trusting(&ca).identity(Identity::from_pem(client.cert, client.key));
    let channel = connect(url, Some(tls)).await.unwrap();
    assert!(list_variants(channel, None).await.unwrap() >= 7);
}

#[tokio::test]
async fn tokens_over_tls_missing_or_wrong_are_unauthenticated() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("test CA");
    let server = start_tls(dir.path(), &ca, None, &["alice:tok-alice", "tok-bare"]).await;
    let channel = connect(format!("https://{}", server.addr), Some(trusting(&ca))).await.unwrap();
    let missing = list_variants(channel.clone(), None).await.unwrap_err();
    assert_eq!(missing.code(), Code::Unauthenticated, "{missing:?}");
    let wrong = list_variants(channel.clone(), Some("tok-alicf")).await.unwrap_err();
    assert_eq!(wrong.code(), Code::Unauthenticated, "{wrong:?}");
    let prefix = list_variants(channel.clone(), Some("tok-alic")).await.unwrap_err();
    assert_eq!(prefix.code(), Code::Unauthenticated, "{prefix:?}");
    assert!(list_variants(channel.clone(), Some("tok-alice")).await.is_ok());
    assert!(list_variants(channel.clone(), Some("tok-bare")).await.is_ok());
    // A stream is refused before it starts.
    let mut client = AnalysisServiceClient::new(channel.clone());
    let perft = pb::PerftRequest {
        position: Some(pb::Position { variant: "chess".into(), ..Default::default() }),
        depth: 2,
        ..Default::default()
    };
    let refused = client.perft(perft).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    // Health is exempt by default; reflection is not.
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let status = health
        .check(tonic_health::pb::HealthCheckRequest { service: "menagerie.v1.AnalysisService".into() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.status, tonic_health::pb::health_check_response::ServingStatus::Serving as i32);
    let mut reflection =
        tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let ask = tonic_reflection::pb::v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(tonic_reflection::pb::v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let refused = match reflection.server_reflection_info(tokio_stream::once(ask)).await {
        Err(s) => s,
        Ok(r) => r.into_inner().message().await.unwrap_err(),
    };
    assert_eq!(refused.code(), Code::Unauthenticated);
}

#[tokio::test]
async fn health_can_require_a_token_too() {
    let config = SecurityConfig {
        auth_tokens: vec!["probe:tok".into()],
        auth_exempt_health: false,
        ..SecurityConfig::default()
    };
    let server = start(config.load().unwrap()).await;
    let channel = connect(format!("http://{}", server.addr), None).await.unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let refused = health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    let mut req = Request::new(tonic_health::pb::HealthCheckRequest { service: String::new() });
    req.metadata_mut().insert("authorization", "Bearer tok".parse().unwrap());
    assert!(health.check(req).await.is_ok());
}

/// The auth layer hands the token's name to the service as its [`ClientId`].
#[tokio::test]
async fn an_accepted_token_names_the_client() {
    use tower_layer::Layer;
    use tower_service::Service;

    /// Answers with the request's ClientId in a header.
    #[derive(Clone)]
    struct Echo;
    impl Service<http::Request<()>> for Echo {
        type Response = http::Response<tonic::body::Body>;
        type Error = std::convert::Infallible;
        type Future = std::future::Ready<Result<Self::Response, Self::Error>>;
        fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn call(&mut self, req: http::Request<()>) -> Self::Future {
            let mut response = http::Response::new(tonic::body::Body::default());
            if let Some(ClientId(name)) = req.extensions().get::<ClientId>() {
                response.headers_mut().insert("client", name.parse().unwrap());
            }
            std::future::ready(Ok(response))
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "tokens", "# operators\nalice:tok-a\n\ntok-b\n");
    let config = SecurityConfig { auth_tokens_file: Some(file), ..SecurityConfig::default() };
    let mut service = config.load().unwrap().auth.layer(Echo);
    let call = |token: &str| {
        http::Request::builder()
            .uri("/menagerie.v1.AnalysisService/ListVariants")
            .header("authorization", format!("Bearer {token}"))
            .body(())
            .unwrap()
    };
    let r = service.call(call("tok-a")).await.unwrap();
    assert_eq!(r.headers()["client"], "alice");
    let r = service.call(call("tok-b")).await.unwrap();
    assert_eq!(r.headers()["client"], "token-4");
    let r = service.call(call("tok-c")).await.unwrap();
    assert_eq!(r.headers()["grpc-status"], "16");
    assert!(r.headers().get("client").is_none());
}

/// The health-only listener answers probes in plaintext, without a token,
/// while the API listener wants TLS and a token; it serves nothing else.
#[tokio::test]
async fn the_health_listener_is_plaintext_and_serves_health_only() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("test CA");
    let server_cert = ca.server();
    let security = SecurityConfig {
        tls_cert: Some(write(dir.path(), "server.pem", &server_cert.cert)),
        tls_key: Some(write(dir.path(), "server.key", &server_cert.key)),
        auth_tokens: vec!["ops:tok".into()],
        auth_exempt_health: false,
        ..SecurityConfig::default()
    }
    .load()
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let health_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let health_addr = health_listener.local_addr().unwrap();
    let service = AnalysisApi::new(Config::defaults());
    let (tx, rx) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = rx.await;
    };
    let options = ServeOptions { security, health_listener: Some(health_listener), ..ServeOptions::default() };
    let serving = tokio::spawn(serve_with(service, listener, options, shutdown, Duration::from_secs(1)));
    let channel = connect(format!("http://{health_addr}"), None).await.unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let ask = |service: &str| tonic_health::pb::HealthCheckRequest { service: service.into() };
    let serving_status = tonic_health::pb::health_check_response::ServingStatus::Serving as i32;
    assert_eq!(health.check(ask("")).await.unwrap().into_inner().status, serving_status);
    assert_eq!(health.check(ask("menagerie.v1.AnalysisService")).await.unwrap().into_inner().status, serving_status);
    let not_here = list_variants(channel, Some("tok")).await.unwrap_err();
    assert_eq!(not_here.code(), Code::Unimplemented);
    // On shutdown the probes see NOT_SERVING (or the listener is gone).
    tx.send(()).unwrap();
    let mut drained = false;
    for _ in 0..100 {
        match health.check(ask("")).await {
            Ok(r) if r.get_ref().status == serving_status => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            _ => {
                drained = true;
                break;
            }
        }
    }
    assert!(drained, "the health listener still says SERVING after the shutdown");
    tokio::time::timeout(Duration::from_secs(10), serving).await.unwrap().unwrap().unwrap();
}

#[test]
fn unreadable_or_empty_token_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = SecurityConfig { auth_tokens_file: Some(dir.path().join("nope")), ..SecurityConfig::default() };
    assert!(missing.load().unwrap_err().to_string().contains("nope"));
    let empty = write(dir.path(), "empty", "# nothing\n\n");
    let empty = SecurityConfig { auth_tokens_file: Some(empty), ..SecurityConfig::default() };
    assert!(empty.load().unwrap_err().to_string().contains("no tokens"));
}

/// With authentication, the per-client job limit counts by token name:
/// one token cannot take every slot, another from the same address still
/// gets its work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_client_limits_count_by_token_name() {
    let config =
        SecurityConfig { auth_tokens: vec!["alice:tok-a".into(), "bob:tok-b".into()], ..SecurityConfig::default() };
    let server = start(config.load().unwrap()).await;
    let channel = connect(format!("http://{}", server.addr), None).await.unwrap();
    let perft = |token: &str, depth: u32| {
        let mut req = Request::new(pb::PerftRequest {
            position: Some(pb::Position { variant: "chess".into(), ..Default::default() }),
            depth,
            ..Default::default()
        });
        req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
        req
    };
    let mut client = AnalysisServiceClient::new(channel);
    // Four slots, two per client: alice's third deep perft is refused at once.
    let _held = [
        client.perft(perft("tok-a", 7)).await.unwrap().into_inner(),
        client.perft(perft("tok-a", 7)).await.unwrap().into_inner(),
    ];
    let refused = client.perft(perft("tok-a", 7)).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(refused.message().contains("this client"), "{refused:?}");
    let mut served = client.perft(perft("tok-b", 3)).await.unwrap().into_inner();
    let mut total = None;
    while let Some(event) = served.message().await.unwrap() {
        if let Some(pb::perft_response::Event::Total(t)) = event.event {
            total = Some(t.nodes);
        }
    }
    assert_eq!(total, Some(8_902));
}
