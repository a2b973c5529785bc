//! Training data for Menagerie's neural evaluation (issue 46): the text
//! data format ([`data`]) and a seeded random number generator ([`rng`]).

pub mod data;
pub mod rng;
pub mod train;
