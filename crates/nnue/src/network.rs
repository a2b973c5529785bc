//! The float reference network, the quantised network and its file format.

use crate::simd::{Kernels, LANES};
use crate::{QA, QB, SCALE};

/// A network in floating point: the trainer's view and the reference the
/// quantised [`Network`] is checked against.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The game's name (`VariantId::name`).
    pub variant: String,
    /// Input features (`feature_count` of the game).
    pub inputs: usize,
    /// Hidden units per perspective.
    pub hidden: usize,
    /// Input weights, `inputs * hidden`, one row of `hidden` per input.
    pub w1: Vec<f32>,
    /// Accumulator biases, `hidden`.
    pub b1: Vec<f32>,
    /// Output weights, `2 * hidden`: side to move's half first.
    pub w2: Vec<f32>,
    /// Output bias.
    pub b2: f32,
    /// A residual network: the engine's evaluation is the linear
    /// evaluation plus this network's output (else the output alone).
    pub residual: bool,
}

/// Clipped ReLU: `clamp(x, 0, 1)`.
#[inline]
pub fn crelu(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// A small deterministic generator (SplitMix64) for random networks.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform float in `[-r, r)`.
    pub fn uniform(&mut self, r: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        (unit * 2.0 - 1.0) * r
    }
}

impl FloatNetwork {
    /// A network of zeros.
    pub fn zeros(variant: &str, inputs: usize, hidden: usize) -> FloatNetwork {
        FloatNetwork {
            variant: variant.to_string(),
            inputs,
            hidden,
            w1: vec![0.0; inputs * hidden],
            b1: vec![0.0; hidden],
            w2: vec![0.0; 2 * hidden],
            b2: 0.0,
            residual: false,
        }
    }

    /// A random network from `seed`: input weights and biases uniform in
    /// `[-0.1, 0.1)`, output weights in `[-0.5, 0.5)` (an untrained net, for
    /// tests, benchmarks and a trainer's start).
    pub fn random(variant: &str, inputs: usize, hidden: usize, seed: u64) -> FloatNetwork {
        let mut rng = SplitMix(seed);
        let mut net = FloatNetwork::zeros(variant, inputs, hidden);
        net.w1.iter_mut().chain(net.b1.iter_mut()).for_each(|w| *w = rng.uniform(0.1));
        net.w2.iter_mut().for_each(|w| *w = rng.uniform(0.5));
        net.b2 = rng.uniform(0.1);
        net
    }

    /// The accumulator (before the activation) of one perspective whose
    /// active features are `features`.
    pub fn accumulate(&self, features: &[u32]) -> Vec<f32> {
        let mut acc = self.b1.clone();
        for &f in features {
            let f = f as usize;
            if f < self.inputs {
                let row = &self.w1[f * self.hidden..(f + 1) * self.hidden];
                acc.iter_mut().zip(row).for_each(|(a, w)| *a += w);
            }
        }
        acc
    }

    /// The evaluation in centipawns for the side to move, from the active
    /// features of the side to move (`stm`) and of the other side (`nstm`).
    /// Features out of range are ignored.
    pub fn forward(&self, stm: &[u32], nstm: &[u32]) -> f32 {
        let (a, b) = (self.accumulate(stm), self.accumulate(nstm));
        let h = self.hidden;
        let out = self.b2
            + a.iter().zip(&self.w2[..h]).map(|(x, w)| crelu(*x) * w).sum::<f32>()
            + b.iter().zip(&self.w2[h..]).map(|(x, w)| crelu(*x) * w).sum::<f32>();
        out * SCALE as f32
    }
}

/// The quantised network the engine runs (docs/nnue.md, "Quantisation").
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub(crate) variant: String,
    pub(crate) inputs: usize,
    pub(crate) hidden: usize,
    pub(crate) w1: Vec<i16>,
    pub(crate) b1: Vec<i16>,
    pub(crate) w2: Vec<i16>,
    pub(crate) b2: i32,
    pub(crate) residual: bool,
}

/// Why a network file was refused.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// The file does not start with the magic bytes.
    #[error("not a Menagerie network file (bad magic bytes)")]
    BadMagic,
    /// A version this build does not read.
    #[error("network file version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The file ends early.
    #[error("network file truncated: {needed} bytes needed, {found} present")]
    Truncated {
        /// Bytes the header says the file has.
        needed: usize,
        /// Bytes present.
        found: usize,
    },
    /// Bytes after the checksum.
    #[error("network file has {0} bytes after its end")]
    TrailingBytes(usize),
    /// The input or hidden size is out of range.
    #[error(
        "network sizes out of range: {inputs} inputs, {hidden} hidden (hidden must be a multiple of 16, 16..=1024; inputs 1..=65536)"
    )]
    BadSize {
        /// Inputs in the header.
        inputs: u64,
        /// Hidden units in the header.
        hidden: u64,
    },
    /// The checksum does not match the contents.
    #[error("network file checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): the file is corrupt")]
    Checksum {
        /// The checksum in the file.
        stored: u64,
        /// The checksum of the contents.
        computed: u64,
    },
    /// Flag bits this build does not know.
    #[error("network file has unknown flags {0:#x}")]
    UnknownFlags(u32),
    /// The variant name is not UTF-8.
    #[error("network file's variant name is not UTF-8")]
    BadName,
    /// Quantisation constants other than this build's.
    #[error("network quantisation {qa}/{qb}/{scale} differs from this build's {QA}/{QB}/{SCALE}")]
    Quantisation {
        /// QA in the file.
        qa: u32,
        /// QB in the file.
        qb: u32,
        /// Output scale in the file.
        scale: u32,
    },
    /// The network is for another game.
    #[error("network is for variant '{found}', not '{expected}'")]
    VariantMismatch {
        /// The game it is loaded for.
        expected: String,
        /// The game the file names.
        found: String,
    },
    /// The network's inputs do not match the game's features.
    #[error("network for '{variant}' has {found} inputs, the game has {expected} features")]
    InputMismatch {
        /// The game.
        variant: String,
        /// The game's feature count.
        expected: usize,
        /// The network's inputs.
        found: usize,
    },
    /// The file could not be read.
    #[error("cannot read network file {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// The file's magic bytes.
pub const MAGIC: [u8; 4] = *b"MNNU";
/// The file format version this build writes (it reads this one and 1).
pub const VERSION: u32 = 2;
/// Flag bit of a residual network (version 2 and up).
pub const FLAG_RESIDUAL: u32 = 1;
/// Largest hidden size accepted.
pub const MAX_HIDDEN: usize = 1024;
/// Largest input count accepted.
pub const MAX_INPUTS: usize = 65536;

/// FNV-1a 64 of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

fn quantise(x: f32, q: i32) -> i16 {
    (x * q as f32).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16
}

/// A little-endian reader over a byte slice that reports truncation.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NetworkError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or(NetworkError::Truncated { needed: self.pos.saturating_add(n), found: self.data.len() })?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, NetworkError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, NetworkError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, NetworkError> {
        Ok(self.take(2 * n)?.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect())
    }
}

impl Network {
    /// The quantised form of `net`: input weights and biases times [`QA`],
    /// output weights times [`QB`], output bias times `QA * QB` (rounded,
    /// 16-bit values saturated). The hidden layer is padded with zero units
    /// to a multiple of 16, which changes no output.
    pub fn from_float(net: &FloatNetwork) -> Network {
        let h = net.hidden.max(1).div_ceil(LANES) * LANES;
        let mut w1 = vec![0i16; net.inputs * h];
        for (f, row) in w1.chunks_exact_mut(h).enumerate() {
            for (i, w) in row.iter_mut().enumerate().take(net.hidden) {
                *w = quantise(net.w1.get(f * net.hidden + i).copied().unwrap_or(0.0), QA);
            }
        }
        let mut b1 = vec![0i16; h];
        let mut w2 = vec![0i16; 2 * h];
        for i in 0..net.hidden {
            b1[i] = quantise(net.b1.get(i).copied().unwrap_or(0.0), QA);
            w2[i] = quantise(net.w2.get(i).copied().unwrap_or(0.0), QB);
            w2[h + i] = quantise(net.w2.get(net.hidden + i).copied().unwrap_or(0.0), QB);
        }
        let b2 = (net.b2 * (QA * QB) as f32).round() as i32;
        Network { variant: net.variant.clone(), inputs: net.inputs, hidden: h, w1, b1, w2, b2, residual: net.residual }
    }

    /// The game the network is for.
    pub fn variant(&self) -> &str {
        &self.variant
    }
    /// Input features.
    pub fn inputs(&self) -> usize {
        self.inputs
    }
    /// Hidden units per perspective (a multiple of 16).
    pub fn hidden(&self) -> usize {
        self.hidden
    }
    /// Whether the engine adds the output to its linear evaluation
    /// (a residual network) rather than using it alone.
    pub fn residual(&self) -> bool {
        self.residual
    }
    /// The quantised input weights of feature `f` (one row of [`Network::hidden`]).
    #[inline]
    pub fn row(&self, f: u32) -> &[i16] {
        let f = f as usize;
        &self.w1[f * self.hidden..(f + 1) * self.hidden]
    }
    /// The quantised accumulator biases.
    pub fn bias(&self) -> &[i16] {
        &self.b1
    }

    /// Checks that the network is `variant`'s with `inputs` features.
    pub fn check(&self, variant: &str, inputs: usize) -> Result<(), NetworkError> {
        if self.variant != variant {
            return Err(NetworkError::VariantMismatch { expected: variant.to_string(), found: self.variant.clone() });
        }
        if self.inputs != inputs {
            return Err(NetworkError::InputMismatch {
                variant: variant.to_string(),
                expected: inputs,
                found: self.inputs,
            });
        }
        Ok(())
    }

    /// Sets `acc` (of [`Network::hidden`] values) to the accumulator of the
    /// active `features` (features out of range are ignored).
    pub fn refresh(&self, features: &[u32], acc: &mut [i16], k: Kernels) {
        acc.copy_from_slice(&self.b1);
        for &f in features.iter().filter(|&&f| (f as usize) < self.inputs) {
            k.add(acc, self.row(f));
        }
    }

    /// The evaluation in centipawns for the side to move from the side to
    /// move's accumulator and the other side's:
    /// `(b2 + sum clamp(acc, 0, QA) * w2) * SCALE / (QA * QB)`.
    #[inline]
    pub fn output(&self, stm: &[i16], nstm: &[i16], k: Kernels) -> i32 {
        let h = self.hidden;
        let sum = i64::from(self.b2) + k.dot(stm, &self.w2[..h]) + k.dot(nstm, &self.w2[h..]);
        (sum * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// The evaluation from the two perspectives' active features (a full
    /// refresh of both accumulators).
    pub fn evaluate(&self, stm: &[u32], nstm: &[u32]) -> i32 {
        let k = Kernels::detect();
        let mut a = vec![0; self.hidden];
        let mut b = vec![0; self.hidden];
        self.refresh(stm, &mut a, k);
        self.refresh(nstm, &mut b, k);
        self.output(&a, &b, k)
    }

    /// The file's bytes (docs/nnue.md, "File format").
    pub fn to_bytes(&self) -> Vec<u8> {
        let name = self.variant.as_bytes();
        let name = &name[..name.len().min(u16::MAX as usize)];
        let mut out = Vec::with_capacity(40 + name.len() + 2 * (self.w1.len() + self.b1.len() + self.w2.len()));
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(name);
        let flags = if self.residual { FLAG_RESIDUAL } else { 0 };
        for v in [self.inputs as u32, self.hidden as u32, QA as u32, QB as u32, SCALE as u32, flags] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        let sum = fnv1a64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a network file. Every malformed file is an error: bad magic,
    /// another version, sizes out of range, truncation, trailing bytes, a
    /// checksum mismatch, a name not UTF-8, other quantisation constants.
    pub fn from_bytes(data: &[u8]) -> Result<Network, NetworkError> {
        let mut r = Reader { data, pos: 0 };
        if r.take(4)? != MAGIC {
            return Err(NetworkError::BadMagic);
        }
        let version = r.u32()?;
        if !(1..=VERSION).contains(&version) {
            return Err(NetworkError::UnsupportedVersion { found: version, supported: VERSION });
        }
        let name_len = r.u16()? as usize;
        let name = r.take(name_len)?;
        let (inputs, hidden) = (r.u32()? as usize, r.u32()? as usize);
        let (qa, qb, scale) = (r.u32()?, r.u32()?, r.u32()?);
        let flags = if version >= 2 { r.u32()? } else { 0 };
        if !(1..=MAX_INPUTS).contains(&inputs) || !(LANES..=MAX_HIDDEN).contains(&hidden) || hidden % LANES != 0 {
            return Err(NetworkError::BadSize { inputs: inputs as u64, hidden: hidden as u64 });
        }
        // Sizes are bounded above, so this cannot overflow.
        let needed = r.pos + 2 * (inputs * hidden + hidden + 2 * hidden) + 4 + 8;
        if data.len() < needed {
            return Err(NetworkError::Truncated { needed, found: data.len() });
        }
        if data.len() > needed {
            return Err(NetworkError::TrailingBytes(data.len() - needed));
        }
        let body = &data[..needed - 8];
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&data[needed - 8..]);
        let (stored, computed) = (u64::from_le_bytes(stored), fnv1a64(body));
        if stored != computed {
            return Err(NetworkError::Checksum { stored, computed });
        }
        let variant = std::str::from_utf8(name).map_err(|_| NetworkError::BadName)?.to_string();
        if (qa, qb, scale) != (QA as u32, QB as u32, SCALE as u32) {
            return Err(NetworkError::Quantisation { qa, qb, scale });
        }
        if flags & !FLAG_RESIDUAL != 0 {
            return Err(NetworkError::UnknownFlags(flags & !FLAG_RESIDUAL));
        }
        let w1 = r.i16s(inputs * hidden)?;
        let b1 = r.i16s(hidden)?;
        let w2 = r.i16s(2 * hidden)?;
        let b2 = r.u32()? as i32;
        Ok(Network { variant, inputs, hidden, w1, b1, w2, b2, residual: flags & FLAG_RESIDUAL != 0 })
    }

    /// Reads the network file at `path`.
    pub fn load(path: &std::path::Path) -> Result<Network, NetworkError> {
        let data =
            std::fs::read(path).map_err(|source| NetworkError::Io { path: path.display().to_string(), source })?;
        Network::from_bytes(&data)
    }
}
