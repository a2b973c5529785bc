//! Prints the magic multipliers that `search_magics` finds (the embedded constants).
fn main() {
    let (rook, bishop) = menagerie_geometry::search_magics();
    for (name, m) in [("ROOK", rook), ("BISHOP", bishop)] {
        let v: Vec<String> = m.iter().map(|x| format!("0x{x:016X}")).collect();
        println!("{name}: {}", v.join(", "));
    }
}
