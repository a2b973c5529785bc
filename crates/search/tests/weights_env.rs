//! `MENAGERIE_EVAL_WEIGHTS` names a weights file the engine plays with. The
//! variable is read once per process: this file holds a single test.

use menagerie_search::Weights;
use menagerie_variants::{Alpaca, Chess};

#[test]
fn a_weights_file_named_in_the_environment_is_played_over_the_defaults() {
    let dir = std::env::temp_dir().join(format!("menagerie-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("w.txt");
    std::fs::write(&path, "# a candidate\nmaterial_mg.Knight 333\ntempo 7\n").expect("write");
    // SAFETY: the only test of this binary; no other thread reads the environment.
    unsafe { std::env::set_var("MENAGERIE_EVAL_WEIGHTS", &path) };
    let knight = Weights::index_of("material_mg.Knight").expect("a weight");
    let tempo = Weights::index_of("tempo").expect("a weight");
    let bishop = Weights::index_of("material_mg.Bishop").expect("a weight");
    for (w, d) in [
        (Weights::for_variant::<Chess>(), Weights::defaults::<Chess>()),
        (Weights::for_variant::<Alpaca>(), Weights::defaults::<Alpaca>()),
    ] {
        assert_eq!((w.get(knight), w.get(tempo)), (333, 7));
        // Weights the file does not name keep their defaults.
        assert_eq!(w.get(bishop), d.get(bishop));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
