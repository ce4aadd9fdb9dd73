//! One description of where Bitcoin headers come from, shared by every
//! front end (the CLI's `verify`, `ots verify`, `check`, `protect`, `serve`;
//! the Python package): the upstream (Esplora or bitcoind with its login
//! rules), the cache directory, the network and the time each request gets.
//! [`HeaderConfig::build`] checks the combination and builds the source.

use crate::headers::{BitcoinRpc, CachedSource, Esplora, HeaderCache, RpcAuth};
use priorart_files::FileError;
use priorart_ots::{HeaderSource, Network};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Longest RPC password file read (its first line is the password).
const MAX_PASSWORD_FILE_BYTES: u64 = 4096;

/// The time a header source gets per request unless told otherwise.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Where headers come from. The default reads the header cache directory of
/// mainnet and asks no one else.
#[derive(Clone)]
pub struct HeaderConfig {
    /// Esplora REST base URL (e.g. `https://blockstream.info/api`).
    pub esplora: Option<String>,
    /// bitcoind JSON-RPC URL (e.g. `http://127.0.0.1:8332`).
    pub bitcoin_rpc: Option<String>,
    /// bitcoind's cookie file; without it and without a user, the default
    /// `~/.bitcoin/[regtest/].cookie`.
    pub rpc_cookie: Option<PathBuf>,
    /// bitcoind RPC user (needs a password or a password file).
    pub rpc_user: Option<String>,
    /// bitcoind RPC password.
    pub rpc_password: Option<String>,
    /// A file whose first line is the bitcoind RPC password.
    pub rpc_password_file: Option<PathBuf>,
    /// Directory of cached headers (`HEIGHT.hex`); default
    /// [`HeaderCache::default_dir`].
    pub header_cache: Option<PathBuf>,
    /// Neither read nor write a header cache (needs an upstream).
    pub no_header_cache: bool,
    /// The chain headers must belong to.
    pub network: Network,
    /// The time each request gets.
    pub timeout: Duration,
}

impl Default for HeaderConfig {
    fn default() -> Self {
        HeaderConfig {
            esplora: None,
            bitcoin_rpc: None,
            rpc_cookie: None,
            rpc_user: None,
            rpc_password: None,
            rpc_password_file: None,
            header_cache: None,
            no_header_cache: false,
            network: Network::Mainnet,
            timeout: DEFAULT_HEADER_TIMEOUT,
        }
    }
}

/// The password never reaches a log line.
impl fmt::Debug for HeaderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeaderConfig")
            .field("esplora", &self.esplora)
            .field("bitcoin_rpc", &self.bitcoin_rpc)
            .field("rpc_cookie", &self.rpc_cookie)
            .field("rpc_user", &self.rpc_user)
            .field("rpc_password", &self.rpc_password.as_ref().map(|_| "<hidden>"))
            .field("rpc_password_file", &self.rpc_password_file)
            .field("header_cache", &self.header_cache)
            .field("no_header_cache", &self.no_header_cache)
            .field("network", &self.network)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// A combination of header options that cannot work.
#[derive(Debug, thiserror::Error)]
pub enum HeaderConfigError {
    /// Two upstreams named.
    #[error("--esplora and --bitcoin-rpc: choose one header source")]
    TwoUpstreams,
    /// Cache refused and no upstream to ask instead.
    #[error("--no-header-cache needs a header source: --esplora or --bitcoin-rpc")]
    NoCacheNoUpstream,
    /// A cache directory named and the cache refused.
    #[error("--header-cache and --no-header-cache: choose one")]
    CacheAndNoCache,
    /// bitcoind login options without bitcoind.
    #[error("--rpc-cookie, --rpc-user and the RPC password need --bitcoin-rpc")]
    RpcLoginWithoutRpc,
    /// A cookie and a user both given.
    #[error("--rpc-cookie and --rpc-user: choose one way to log in")]
    CookieAndUser,
    /// A user without a password.
    #[error("--rpc-user needs a password: --rpc-password, PRIORART_RPC_PASSWORD or --rpc-password-file")]
    UserWithoutPassword,
    /// A password without a user.
    #[error("an RPC password needs --rpc-user")]
    PasswordWithoutUser,
    /// Both a password and a password file.
    #[error("--rpc-password and --rpc-password-file: choose one")]
    TwoPasswords,
    /// The password file could not be read.
    #[error("the RPC password file")]
    PasswordFile(#[source] FileError),
}

impl HeaderConfigError {
    /// Whether the options themselves are wrong (a usage error), as opposed
    /// to a file that could not be read.
    pub fn is_usage(&self) -> bool {
        !matches!(self, HeaderConfigError::PasswordFile(_))
    }
}

priorart_reason::reason_names!(HeaderConfigError {
    TwoUpstreams => "two_header_sources",
    NoCacheNoUpstream => "no_header_source",
    CacheAndNoCache => "cache_and_no_cache",
    RpcLoginWithoutRpc => "rpc_login_without_rpc",
    CookieAndUser => "cookie_and_user",
    UserWithoutPassword => "user_without_password",
    PasswordWithoutUser => "password_without_user",
    TwoPasswords => "two_passwords",
    PasswordFile => "password_file",
});

impl HeaderConfig {
    /// Refuses combinations that cannot work; reads no file.
    pub fn validate(&self) -> Result<(), HeaderConfigError> {
        let has_password = self.rpc_password.is_some() || self.rpc_password_file.is_some();
        if self.esplora.is_some() && self.bitcoin_rpc.is_some() {
            return Err(HeaderConfigError::TwoUpstreams);
        }
        if self.no_header_cache && self.header_cache.is_some() {
            return Err(HeaderConfigError::CacheAndNoCache);
        }
        if self.no_header_cache && self.esplora.is_none() && self.bitcoin_rpc.is_none() {
            return Err(HeaderConfigError::NoCacheNoUpstream);
        }
        if self.bitcoin_rpc.is_none()
            && (self.rpc_cookie.is_some() || self.rpc_user.is_some() || has_password)
        {
            return Err(HeaderConfigError::RpcLoginWithoutRpc);
        }
        if self.rpc_cookie.is_some() && self.rpc_user.is_some() {
            return Err(HeaderConfigError::CookieAndUser);
        }
        if self.rpc_password.is_some() && self.rpc_password_file.is_some() {
            return Err(HeaderConfigError::TwoPasswords);
        }
        match (self.rpc_user.is_some(), has_password) {
            (true, false) => Err(HeaderConfigError::UserWithoutPassword),
            (false, true) => Err(HeaderConfigError::PasswordWithoutUser),
            _ => Ok(()),
        }
    }

    /// How to log in to bitcoind: the user and password, the cookie given,
    /// or the default cookie of the network (none without `HOME`).
    pub fn rpc_auth(&self) -> Result<RpcAuth, HeaderConfigError> {
        self.validate()?;
        if let Some(user) = &self.rpc_user {
            let password = match (&self.rpc_password, &self.rpc_password_file) {
                (Some(password), _) => password.clone(),
                (None, Some(path)) => {
                    let bytes = priorart_files::read_limited(path, MAX_PASSWORD_FILE_BYTES)
                        .map_err(HeaderConfigError::PasswordFile)?;
                    String::from_utf8_lossy(&bytes).lines().next().unwrap_or_default().to_owned()
                }
                (None, None) => return Err(HeaderConfigError::UserWithoutPassword),
            };
            return Ok(RpcAuth::UserPassword { user: user.clone(), password });
        }
        if let Some(cookie) = &self.rpc_cookie {
            return Ok(RpcAuth::Cookie(cookie.clone()));
        }
        let subdir = match self.network {
            Network::Mainnet => "",
            Network::Regtest => "regtest",
        };
        Ok(match std::env::var_os("HOME").filter(|home| !home.is_empty()) {
            Some(home) => RpcAuth::Cookie(PathBuf::from(home).join(".bitcoin").join(subdir).join(".cookie")),
            None => RpcAuth::None,
        })
    }

    /// The header source: the cache (the directory given, the default one,
    /// or memory only when there is no home) in front of the upstream, or
    /// the upstream alone with `no_header_cache`.
    pub fn build(&self) -> Result<Box<dyn HeaderSource>, HeaderConfigError> {
        self.validate()?;
        let upstream: Option<Box<dyn HeaderSource>> = if let Some(url) = &self.esplora {
            Some(Box::new(Esplora::new(url, self.timeout)))
        } else if let Some(url) = &self.bitcoin_rpc {
            Some(Box::new(BitcoinRpc::new(url, self.rpc_auth()?, self.timeout)))
        } else {
            None
        };
        if self.no_header_cache {
            return upstream.ok_or(HeaderConfigError::NoCacheNoUpstream);
        }
        let cache = match self.header_cache.clone().or_else(|| HeaderCache::default_dir(self.network)) {
            Some(dir) => HeaderCache::in_dir(dir),
            None => HeaderCache::in_memory(),
        };
        Ok(Box::new(CachedSource::new(cache, upstream, self.network)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rpc() -> HeaderConfig {
        HeaderConfig { bitcoin_rpc: Some("http://127.0.0.1:1".into()), ..HeaderConfig::default() }
    }

    #[test]
    fn the_default_is_the_mainnet_cache_alone() {
        let config = HeaderConfig::default();
        assert!(config.validate().is_ok());
        assert!(config.build().unwrap().describe().contains("cache"));
    }

    #[test]
    fn impossible_combinations_are_refused_with_their_reason() {
        let cases = [
            (HeaderConfig { esplora: Some("http://e".into()), ..rpc() }, "two_header_sources"),
            (HeaderConfig { no_header_cache: true, ..HeaderConfig::default() }, "no_header_source"),
            (
                HeaderConfig { no_header_cache: true, header_cache: Some("d".into()), ..rpc() },
                "cache_and_no_cache",
            ),
            (HeaderConfig { rpc_user: Some("u".into()), ..HeaderConfig::default() }, "rpc_login_without_rpc"),
            (
                HeaderConfig { rpc_cookie: Some("c".into()), rpc_user: Some("u".into()), ..rpc() },
                "cookie_and_user",
            ),
            (HeaderConfig { rpc_user: Some("u".into()), ..rpc() }, "user_without_password"),
            (HeaderConfig { rpc_password: Some("p".into()), ..rpc() }, "password_without_user"),
            (
                HeaderConfig {
                    rpc_user: Some("u".into()),
                    rpc_password: Some("p".into()),
                    rpc_password_file: Some("f".into()),
                    ..rpc()
                },
                "two_passwords",
            ),
        ];
        for (config, reason) in cases {
            let err = config.build().err().unwrap_or_else(|| panic!("{config:?} was accepted"));
            assert_eq!(err.reason(), reason, "{config:?}");
            assert!(err.is_usage());
        }
    }

    #[test]
    fn the_password_file_gives_its_first_line_and_debug_hides_passwords() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "s3cret\nignored\n").unwrap();
        let config = HeaderConfig { rpc_user: Some("u".into()), rpc_password_file: Some(file), ..rpc() };
        match config.rpc_auth().unwrap() {
            RpcAuth::UserPassword { user, password } => {
                assert_eq!((user.as_str(), password.as_str()), ("u", "s3cret"))
            }
            _ => panic!("expected a user and password"),
        }
        let shown = format!(
            "{:?}",
            HeaderConfig { rpc_user: Some("u".into()), rpc_password: Some("s3cret".into()), ..rpc() }
        );
        assert!(!shown.contains("s3cret"), "{shown}");
        let missing = HeaderConfig { rpc_password_file: Some(dir.path().join("absent")), ..config };
        let err = missing.rpc_auth().err().unwrap();
        assert_eq!(err.reason(), "password_file");
        assert!(!err.is_usage());
    }

    #[test]
    fn regtest_without_a_login_uses_the_regtest_cookie() {
        let config = HeaderConfig { network: Network::Regtest, ..rpc() };
        if let RpcAuth::Cookie(path) = config.rpc_auth().unwrap() {
            assert!(path.ends_with("regtest/.cookie"), "{}", path.display());
        }
    }
}
