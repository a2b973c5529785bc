//! Positions of seeded random games played by Fairy-Stockfish (pyffish
//! 0.0.90, `benches/fsf_positions.py`): at each one Menagerie's legal
//! moves, game end and, after the move played, FEN must be Fairy-Stockfish's.
//!
//! The committed files cover the flag wins (king of the hill, racing kings)
//! and check counting (three-check, five-check), and drops (crazyhouse,
//! loop, chessgi, pocket knight), and lichess's variants (antichess,
//! giveaway, suicide, horde, atomic, nocheckatomic), the xiangqi and janggi families,
//! and the built-ins
//! defined by their Fairy-Stockfish names; `MENAGERIE_FSF_POSITIONS`
//! names a larger file made by the same script, whose variants may come
//! from the variants file `MENAGERIE_FSF_VARIANTS_INI` names (loaded
//! leniently, as the script's `--ini`).

mod common;

use menagerie_rules::{Definitions, GameResult, Position};

const FLAGS_AND_CHECKS: &str = include_str!("../../../tests/perft/flags-checks-pyffish.txt");
const DROPS: &str = include_str!("../../../tests/perft/drops-pyffish.txt");
const LICHESS: &str = include_str!("../../../tests/perft/lichess-pyffish.txt");
const SHOGI: &str = include_str!("../../../tests/perft/shogi-pyffish.txt");
const BUILTINS: &str = include_str!("../../../tests/perft/fsf-builtins-pyffish.txt");
const XIANGQI: &str = include_str!("../../../tests/perft/xiangqi-pyffish.txt");
const PAWN_TYPES: &str = include_str!("../../../tests/perft/pawn-types-pyffish.txt");
const SHOGI_INI: &str = include_str!("../../../tests/variants/shogi-promotion.ini");
const PAWN_TYPES_INI: &str = include_str!("../../../tests/variants/pawn-types.ini");
const CONNECT: &str = include_str!("../../../tests/perft/connect-pyffish.txt");
const CONNECT_INI: &str = include_str!("../../../tests/variants/connect.ini");
const ROYALS: &str = include_str!("../../../tests/perft/royals-pyffish.txt");
const WALLS: &str = include_str!("../../../tests/perft/walls-pyffish.txt");
const ROYALS_INI: &str = include_str!("../../../tests/variants/royals.ini");
const WALLING: &str = include_str!("../../../tests/perft/walling-pyffish.txt");
const WALLING_INI: &str = include_str!("../../../tests/variants/walling.ini");
const ENCLOSING: &str = include_str!("../../../tests/perft/enclosing-pyffish.txt");
const ENCLOSING_INI: &str = include_str!("../../../tests/variants/enclosing.ini");
const PETRIFY: &str = include_str!("../../../tests/perft/petrify-pyffish.txt");
const PETRIFY_INI: &str = include_str!("../../../tests/variants/petrify.ini");
const PLACEMENT: &str = include_str!("../../../tests/perft/placement-pyffish.txt");
const PLACEMENT_INI: &str = include_str!("../../../tests/variants/placement.ini");
const CASTLING: &str = include_str!("../../../tests/perft/castling-pyffish.txt");
const CASTLING_INI: &str = include_str!("../../../tests/variants/castling.ini");
const SHATAR: &str = include_str!("../../../tests/perft/shatar-pyffish.txt");
const BUGHOUSE: &str = include_str!("../../../tests/perft/bughouse-pyffish.txt");
const SPARTAN: &str = include_str!("../../../tests/perft/spartan-pyffish.txt");
const DEMOTION: &str = include_str!("../../../tests/perft/demotion-pyffish.txt");
const DEMOTION_INI: &str = include_str!("../../../tests/variants/demotion.ini");
const SHOUSE: &str = include_str!("../../../tests/perft/shouse-pyffish.txt");
const ROYAL_DROPS: &str = include_str!("../../../tests/perft/royal-drops-pyffish.txt");
const ROYAL_DROPS_INI: &str = include_str!("../../../tests/variants/royal-drops.ini");
const BLAST_DROPS: &str = include_str!("../../../tests/perft/blast-drops-pyffish.txt");
const BLAST_DROPS_INI: &str = include_str!("../../../tests/variants/blast-drops.ini");
const MANY_PIECES: &str = include_str!("../../../tests/perft/many-pieces-pyffish.txt");
const MANY_PIECES_INI: &str = include_str!("../../../tests/variants/many-pieces.ini");
const MANY_TYPES: &str = include_str!("../../../tests/perft/many-types-pyffish.txt");
const NOCHECKS: &str = include_str!("../../../tests/perft/nochecks-pyffish.txt");
const SITTUYIN: &str = include_str!("../../../tests/perft/sittuyin-pyffish.txt");
const NOCHECKS_INI: &str = include_str!("../../../tests/variants/nochecks.ini");
const CAMBODIAN: &str = include_str!("../../../tests/perft/cambodian-pyffish.txt");
/// The test variants the files play, with their file names.
const INIS: [(&str, &str); 14] = [
    (SHOGI_INI, "shogi-promotion.ini"),
    (PAWN_TYPES_INI, "pawn-types.ini"),
    (CONNECT_INI, "connect.ini"),
    (ROYALS_INI, "royals.ini"),
    (WALLING_INI, "walling.ini"),
    (ENCLOSING_INI, "enclosing.ini"),
    (PETRIFY_INI, "petrify.ini"),
    (PLACEMENT_INI, "placement.ini"),
    (CASTLING_INI, "castling.ini"),
    (DEMOTION_INI, "demotion.ini"),
    (NOCHECKS_INI, "nochecks.ini"),
    (ROYAL_DROPS_INI, "royal-drops.ini"),
    (BLAST_DROPS_INI, "blast-drops.ini"),
    (MANY_PIECES_INI, "many-pieces.ini"),
];

fn fnv1a(text: &str) -> String {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01B3);
    }
    format!("{h:016x}")
}

/// Checks every line; returns (positions, game ends) seen.
fn check(text: &str) -> (usize, usize) {
    let mut defs = Definitions::builtin();
    for (text, name) in INIS {
        defs.load(text, name).unwrap_or_else(|e| panic!("{name} loads: {e}"));
    }
    if let Some(ini) = std::env::var_os("MENAGERIE_FSF_VARIANTS_INI") {
        let text = std::fs::read_to_string(&ini).expect("MENAGERIE_FSF_VARIANTS_INI names a readable file");
        defs.load_with(&text, "variants.ini", menagerie_rules::LoadOptions::default()).expect("a lenient load");
    }
    let mut failures = Vec::new();
    let (mut positions, mut ends) = (0, 0);
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    for (i, line) in lines.iter().enumerate() {
        let f: Vec<&str> = line.split(';').collect();
        let [variant, fen, played, result, count, digest] = f[..] else { panic!("bad line {line}") };
        let def = defs.get(variant).unwrap_or_else(|| panic!("no variant {variant}"));
        let pos = match Position::from_fen(def, fen) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{variant} {fen}: {e}"));
                continue;
            }
        };
        positions += 1;
        if pos.fen() != fen {
            failures.push(format!("{variant} {fen}: read back as {}", pos.fen()));
        }
        let mut moves: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
        moves.sort();
        let joined = moves.join(" ");
        if moves.len().to_string() != count || fnv1a(&joined) != digest {
            failures.push(format!("{variant} {fen}: {} moves ({joined}), Fairy-Stockfish {count}", moves.len()));
        }
        let ours = match pos.outcome().map(|o| o.result) {
            None => "-",
            Some(GameResult::Draw) => "draw",
            Some(GameResult::WhiteWins) if pos.white_to_move() => "win",
            Some(GameResult::BlackWins) if !pos.white_to_move() => "win",
            Some(_) => "loss",
        };
        if ours != result {
            failures.push(format!("{variant} {fen}: game end {ours}, Fairy-Stockfish {result}"));
        }
        ends += usize::from(result != "-");
        // The FEN after the move played is the next line's.
        if played != "-" {
            let next = lines.get(i + 1).and_then(|l| l.split(';').nth(1));
            match (pos.parse_move(played), next) {
                (Ok(m), Some(next)) => {
                    let after = pos.play(m).fen();
                    if after != next {
                        failures.push(format!("{variant} {fen} {played}: {after}, Fairy-Stockfish {next}"));
                    }
                }
                (Err(e), _) => failures.push(format!("{variant} {fen}: {e}")),
                (Ok(_), None) => {}
            }
        }
        if failures.len() > 20 {
            break;
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    (positions, ends)
}

/// One test per committed file: `name: FILE, positions >= P, ends >= E,
/// names [...]` checks every position of FILE, which must hold at least P
/// positions, E game ends and a line of each variant named.
macro_rules! suites {
    ($($(#[$doc:meta])* $name:ident: $file:ident, positions >= $p:literal, ends >= $e:literal, names [$($v:literal),*];)*) => {$(
        $(#[$doc])*
        #[test]
        #[allow(unused_comparisons)] // `ends >= 0` where no game ends
        fn $name() {
            let (positions, ends) = check($file);
            assert!(positions >= $p && ends >= $e, "{positions} positions, {ends} game ends");
            let names: &[&str] = &[$($v),*];
            for v in names {
                assert!($file.lines().any(|l| l.starts_with(&format!("{v};"))), "{v}");
            }
        }
    )*};
}

suites! {
    /// King of the hill, racing kings; three-check, five-check.
    flag_wins_and_check_counting_play_as_fairy_stockfish: FLAGS_AND_CHECKS, positions >= 1000, ends >= 8, names [];
    /// Crazyhouse, loop, chessgi and pocket knight: drops, pockets and promoted
    /// pieces (`~`) in the FENs, checkmates by drops.
    drops_play_as_fairy_stockfish: DROPS, positions >= 1000, ends >= 4, names [];
    /// Antichess and its relatives (forced captures, extinction and stalemate
    /// wins), horde (White without a king) and atomic (blasts, pseudo-royal
    /// kings).
    lichess_variants_play_as_fairy_stockfish: LICHESS, positions >= 3000, ends >= 30,
        names ["antichess", "giveaway", "suicide", "horde", "atomic"];
    /// Promoted pieces, drops and promotions of the shogi family.
    shogi_style_promotions_play_as_fairy_stockfish: SHOGI, positions >= 1000, ends >= 2, names [];
    /// Fairy-Stockfish's built-in variants that the embedded `variants.ini`
    /// defines by their Fairy-Stockfish names.
    fairy_stockfish_builtins_by_name_play_as_fairy_stockfish: BUILTINS, positions >= 4000, ends >= 10,
        names ["gardner", "losalamos", "extinction", "breakthrough", "dobutsu", "capahouse", "tencubed", "grand", "opulent"];
    /// Minixiangqi, xiangqi and manchu: the palace and the river (mobility
    /// regions), soldiers that step sideways across the river, horses and
    /// elephants that can be blocked, cannons, the flying general, and
    /// stalemate lost; janggi's three rule sets: cannons that neither jump
    /// nor take cannons, palace diagonals, passes, bikjang.
    the_xiangqi_and_janggi_families_play_as_fairy_stockfish: XIANGQI, positions >= 2500, ends >= 5,
        names ["minixiangqi", "xiangqi", "manchu", "janggi", "janggitraditional", "janggicasual"];
    /// Berolina, pawnsideways, pawnback, legan and wolf chess, and the
    /// sections of `tests/variants/pawn-types.ini`: pieces other than the pawn
    /// with initial moves, en passant captures (several en passant squares in
    /// a FEN) and pawn promotions, the n-move rule's types, triple steps.
    pawn_types_play_as_fairy_stockfish: PAWN_TYPES, positions >= 2500, ends >= 1,
        names ["berolina", "pawnsideways", "pawnback", "legan", "wolf", "triplestep", "sergeants", "crabs"];
    /// Connect wins (rows, squares, lines with gaps, chains between regions)
    /// and forced drops: the sections of `tests/variants/connect.ini`.
    connect_wins_play_as_fairy_stockfish: CONNECT, positions >= 4000, ends >= 100,
        names ["noughts", "squares", "lines", "crossing"];
    /// A royal king beside pseudo-royal pieces: coregal (every queen royal)
    /// and the sections of `tests/variants/royals.ini`.
    royal_kings_beside_pseudo_royal_pieces_play_as_fairy_stockfish: ROYALS, positions >= 1000, ends >= 3,
        names ["coregal", "rajah", "dragons"];
    /// Boards with walls (`*` in the FEN): gustav3, omicron, troitzky.
    walls_play_as_fairy_stockfish: WALLS, positions >= 800, ends >= 3, names ["gustav3", "omicron", "troitzky"];
    /// Walls placed by the moves (`wallingRule`): duck chess, isolation,
    /// snailtrail, joust, amazons, and the sections of
    /// `tests/variants/walling.ini` (arrows with castling, en passant and
    /// promotions; static, past and edge walls beside a royal king; a duck in
    /// atomic chess; `wallOrMove`).
    walling_games_play_as_fairy_stockfish: WALLING, positions >= 800, ends >= 10,
        names ["duck", "isolation", "isolation7x7", "snailtrail", "joust", "amazons", "arrowchess", "wallchess",
            "trailchess", "duckatomic", "edgechess"];
    /// Enclosing drops and flips: ataxx, reversi and othello (8x8, 10x10),
    /// and the sections of `tests/variants/enclosing.ini` (connect four's
    /// falling discs, discs slid in from any side, snort's drops, flips after
    /// board moves and captures, full-board adjudication, reversi among walls).
    enclosing_drops_and_flips_play_as_fairy_stockfish: ENCLOSING, positions >= 1400, ends >= 20,
        names ["ataxx", "flipersi", "flipello", "flipello10", "discs6", "fall4", "slide4", "apart", "wrangle",
            "crusaders", "walled8"];
    /// Petrification and mutual immunity: petrified, atomar, and the
    /// sections of `tests/variants/petrify.ini` (capturers turned to stone
    /// beside a royal king, blasts that leave walls, immune queens and knights).
    petrification_and_mutual_immunity_play_as_fairy_stockfish: PETRIFY, positions >= 1200, ends >= 10,
        names ["petrified", "atomar", "stonechess", "stoneblast", "immunechess"];
    /// Placement drops: placement chess and the sections of
    /// `tests/variants/placement.ini` (bishops on both colours, castling rights
    /// gained by dropping the king and rooks, pawns dropped undoubled).
    placement_drops_play_as_fairy_stockfish: PLACEMENT, positions >= 700, ends >= 2,
        names ["placement", "halfdrop", "rookdrop"];
    /// Castling rules: castling that wins (and rights whose loss loses), and
    /// castling that takes the opponent's right on the same side
    /// (`tests/variants/castling.ini`).
    castling_rules_play_as_fairy_stockfish: CASTLING, positions >= 250, ends >= 10,
        names ["castlewin", "castlehalf", "oppcastle"];
    /// Shatar: mates by knights alone lose for the mating side, mates after a
    /// series of checks without a check by a knight, rook or bers draw, a bare
    /// king draws.
    shatar_plays_as_fairy_stockfish: SHATAR, positions >= 3000, ends >= 10, names ["shatar"];
    /// Bughouse-style games (`twoBoards`: bughouse, koedem with `mustDropType`,
    /// supply chess), started with pieces in hand as a partner would pass them.
    two_board_games_play_as_fairy_stockfish: BUGHOUSE, positions >= 600, ends >= 1,
        names ["bughouse", "koedem", "supply"];
    /// Spartan chess: a lone king is royal, two may not both be left attacked
    /// (`dupleCheck`); hoplites are pawns of another type promoting to kings
    /// at most twice. (Without the duple check rule, 21 of these positions
    /// list moves Fairy-Stockfish does not.)
    spartan_chess_plays_as_fairy_stockfish: SPARTAN, positions >= 1600, ends >= 2, names ["spartan"];
    /// Two-faced pieces: demotions (`pieceDemotion`), promotions only by
    /// captures (`piecePromotionOnCapture`), drops on the promoted face
    /// (`dropPromoted`), pawn types promoting shogi-style, forced captures
    /// with shogi-style promotions; kyoto and micro shogi.
    demotions_and_promoted_drops_play_as_fairy_stockfish: DEMOTION, positions >= 1600, ends >= 8,
        names ["kyotoshogi", "micro"];
    /// S-house: S-chess gating from a hand that captures refill, drops.
    shouse_plays_as_fairy_stockfish: SHOUSE, positions >= 1500, ends >= 10, names ["shouse"];
    /// Drops beside pseudo-royal pieces (a commoner as the king; a queen
    /// royal while alone, royal at once when dropped).
    royal_drops_play_as_fairy_stockfish: ROYAL_DROPS, positions >= 2700, ends >= 10,
        names ["royalhouse", "queenhouse"];
    /// Blasts with drops: every piece blown up goes to its owner's
    /// opponent's hand (a promoted one as a pawn).
    blast_drops_play_as_fairy_stockfish: BLAST_DROPS, positions >= 4700, ends >= 60,
        names ["atomichouse", "quietatomichouse"];
    /// Ten custom pieces (`customPiece9` and `customPiece10` among them),
    /// all dropped from the hand.
    ten_custom_pieces_play_as_fairy_stockfish: MANY_PIECES, positions >= 1500, ends >= 4, names ["manypieces"];
    /// More than sixteen piece types: twenty-four (the most a definition
    /// holds) dropped from the hand, and nineteen with shogi-style
    /// promotions of nine pieces to types of their own.
    twenty_four_piece_types_play_as_fairy_stockfish: MANY_TYPES, positions >= 1800, ends >= 2,
        names ["manypieces24", "manypromotions"];
    /// Games where a move may not give check (`checking = false`) with
    /// pieces that check in unusual ways: grasshoppers (a piece moved next
    /// to the king becomes their hurdle), Capablanca's compounds, a royal
    /// knight; the checks a move uncovers count as given. (No king is ever
    /// in check, so only stalemate could end these games: none of them ends.)
    checks_forbidden_play_as_fairy_stockfish: NOCHECKS, positions >= 3500, ends >= 0,
        names ["nocheckhopper", "nocheckcapa", "nocheckmate"];
    /// Sittuyin: the setup phase of forced drops (rooks on the back rank
    /// only), then promotions in place or onto a diagonal neighbour, from
    /// the promotion diagonals or by a side's last pawn, that attack nothing
    /// and give no check.
    sittuyin_plays_as_fairy_stockfish: SITTUYIN, positions >= 3000, ends >= 3, names ["sittuyin"];
    /// Cambodian chess and kar ouk (`cambodianMoves`, `countingRule =
    /// cambodian`): the king's knight leap and the met's double step from
    /// their gates (`DEde`, or a gate on every back-rank piece), the king's
    /// leap lost to a rook's aim, counting limits and plies in the FENs; in
    /// kar ouk the first check wins.
    cambodian_chess_plays_as_fairy_stockfish: CAMBODIAN, positions >= 2400, ends >= 20, names ["cambodian", "karouk"];
}

/// The committed files hold the cases their tests are there for.
#[test]
fn the_files_hold_the_rules_they_test() {
    let moves = |text: &'static str| text.lines().filter_map(|l| l.split(';').nth(2));
    let fens = |text: &'static str| text.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split(';').nth(1));
    assert!(DROPS.contains('~') && DROPS.contains("P@"), "promoted pieces and pawn drops");
    assert!(SHOGI.contains("+P") && SHOGI.contains("P@") && SHOGI.contains("+;"), "promoted pieces, drops, promotions");
    assert!(XIANGQI.contains("e2e2;") && XIANGQI.contains("e9e9;"), "passes are played");
    let two_ep_squares = fens(PAWN_TYPES).filter(|fen| {
        fen.split_whitespace().nth(3).is_some_and(|ep| ep.chars().filter(|c| c.is_ascii_alphabetic()).count() == 2)
    });
    assert!(two_ep_squares.count() >= 20, "initial moves mark two squares");
    assert!(fens(WALLS).all(|fen| fen.contains('*')), "every position has walls");
    assert!(fens(PETRIFY).filter(|fen| fen.contains('*')).count() >= 400, "petrified walls");
    // Castling rights gained by drops.
    assert!(PLACEMENT.lines().any(|l| l.starts_with("placement;") && l.contains(" w KQ")), "white castles");
    for end in [";win;", ";loss;", ";draw;"] {
        assert!(SHATAR.contains(end), "{end}");
    }
    for variant in ["bughouse;", "koedem;", "supply;"] {
        let drops = BUGHOUSE.lines().filter(|l| l.starts_with(variant) && l.contains('@')).count();
        assert!(drops >= 5, "{variant} {drops} drops played");
    }
    let promoted_drops = moves(DEMOTION).filter(|m| m.starts_with('+')).count();
    let demotions = moves(DEMOTION).filter(|m| m.ends_with('-')).count();
    assert!(promoted_drops >= 10 && demotions >= 50, "{promoted_drops} promoted drops, {demotions} demotions");
    // S-house: captured pieces gated (a move from the back rank naming a
    // piece the start pocket does not hold), and dropped.
    let gated_captures = moves(SHOUSE)
        .filter(|m| m.len() == 5 && matches!(&m[1..2], "1" | "8") && matches!(&m[4..], "q" | "r" | "b" | "n"))
        .count();
    let drops = moves(SHOUSE).filter(|m| m.contains('@')).count();
    assert!(gated_captures >= 5 && drops >= 100, "{gated_captures} captured pieces gated, {drops} drops");
    let royal_drops = moves(ROYAL_DROPS).filter(|m| m.starts_with("Q@")).count();
    assert!(royal_drops >= 50, "{royal_drops} queens dropped");
    let ninth_and_tenth = moves(MANY_PIECES).filter(|m| m.starts_with("J@") || m.starts_with("L@")).count();
    assert!(ninth_and_tenth >= 20, "{ninth_and_tenth} drops of custom pieces 9 and 10");
    let blast_drops = moves(BLAST_DROPS).filter(|m| m.contains('@')).count();
    assert!(blast_drops >= 500 && fens(BLAST_DROPS).any(|f| f.contains('~')), "{blast_drops} drops after blasts");
    // Sittuyin: promotions in place (`h5h5f`) and rook drops.
    let in_place = moves(SITTUYIN).filter(|m| m.len() == 5 && m[..2] == m[2..4]).count();
    let rook_drops = moves(SITTUYIN).filter(|m| m.starts_with("R@") || m.starts_with("r@")).count();
    assert!(in_place >= 2 && rook_drops >= 40, "{in_place} promotions in place, {rook_drops} rook drops");
    let rows = || CAMBODIAN.lines().filter(|l| !l.starts_with('#')).map(|l| l.split(';').collect::<Vec<_>>());
    let played = |wanted: &[&str]| moves(CAMBODIAN).filter(|m| wanted.contains(m)).count();
    let leaps = played(&["d1b2", "d1f2", "e8c7", "e8g7", "e1c2", "e1g2", "d8b7", "d8f7"]);
    let double_steps = played(&["e1e3", "d8d6", "d1d3", "e8e6"]);
    assert!(leaps >= 10 && double_steps >= 1, "{leaps} king leaps, {double_steps} met double steps");
    let counting =
        fens(CAMBODIAN).filter(|fen| fen.split_whitespace().nth(3).is_some_and(|c| c.parse::<u32>().is_ok()));
    assert!(counting.count() >= 20, "positions counting");
    // A king's gate lost to a rook's move (the kings start on d1 and e8,
    // gates D and e, in the first games).
    let piece_on = |fen: &str, square: &str| {
        let (file, rank) = (square.bytes().next()?.checked_sub(b'a')?, square.get(1..)?.parse::<usize>().ok()?);
        let row = fen.split(['/', ' ']).nth(8usize.checked_sub(rank)?)?;
        let mut f = 0;
        for c in row.chars() {
            match c.to_digit(10) {
                Some(n) => f += n as u8,
                None if f == file => return Some(c),
                None => f += 1,
            }
        }
        None
    };
    let all: Vec<Vec<&str>> = rows().collect();
    let gates = |f: &[&str]| f[1].split_whitespace().nth(2).unwrap_or("").to_string();
    let aims = all.windows(2).filter(|w| {
        let rook = w[0][2].get(..2).and_then(|from| piece_on(w[0][1], from)).is_some_and(|p| p == 'R' || p == 'r');
        let (before, after) = (gates(&w[0]), gates(&w[1]));
        let to = w[0][2].get(2..4).unwrap_or("");
        let lost = |(gate, square): &(char, &str)| before.contains(*gate) && !after.contains(*gate) && to != *square;
        rook && [('D', "d1"), ('e', "e8")].iter().any(lost)
    });
    assert!(aims.count() >= 5, "gates lost to a rook");
    assert!(rows().any(|f| f[0] == "cambodian" && f[3] == "loss"), "checkmates");
    assert!(rows().any(|f| f[0] == "karouk" && f[3] == "loss"), "a check wins kar ouk");
}

/// Demotions and promoted drops pack into the hash table's 30 bits and
/// back, and read back from their SAN.
#[test]
fn demotions_and_promoted_drops_pack_and_read_back() {
    let mut defs = Definitions::builtin();
    defs.load(DEMOTION_INI, "demotion.ini").expect("the demotion sections load");
    let (mut seen_demotion, mut seen_promoted_drop) = (false, false);
    for line in DEMOTION.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(';').collect();
        let pos = Position::from_fen(defs.get(f[0]).expect("variant"), f[1]).expect("FEN");
        for m in pos.legal_moves() {
            assert_eq!(menagerie_rules::Move::unpack(m.pack()), Some(m), "{} in {}", pos.move_text(m), f[1]);
            assert_eq!(pos.parse_san(&pos.san(m)), Ok(m), "{} in {}", pos.san(m), f[1]);
            seen_demotion |= m.is_piece_demotion();
            seen_promoted_drop |= m.dropped_promoted().is_some();
        }
    }
    assert!(seen_demotion && seen_promoted_drop);
}

/// Cambodian chess's special moves read back from their SAN (`Kb2`, `Me3`).
#[test]
fn cambodian_special_moves_read_back_from_their_san() {
    let defs = Definitions::builtin();
    for line in CAMBODIAN.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(';').collect();
        let pos = Position::from_fen(defs.get(f[0]).expect("variant"), f[1]).expect("FEN");
        for m in pos.legal_moves() {
            assert_eq!(pos.parse_san(&pos.san(m)), Ok(m), "{} in {}", pos.san(m), f[1]);
        }
    }
}

#[test]
fn a_larger_file_of_positions_when_given() {
    let Some(text) = common::file_named_by("MENAGERIE_FSF_POSITIONS") else { return };
    let (positions, ends) = check(&text);
    eprintln!("{positions} positions, {ends} game ends: equal");
}

/// Shogi's repetition rules as Fairy-Stockfish's `is_optional_game_end`
/// judges them (`tests/perft/repetition-pyffish.txt`): perpetual check
/// loses for the checking side (`perpetualCheckIllegal`), minishogi's
/// fourfold repetition loses for the first player whoever is to move
/// (`nFoldValueAbsolute`), shogi's draws and tori shogi's wins for the side
/// to move; one ply earlier the game goes on.
#[test]
fn repetition_rules_judge_as_fairy_stockfish() {
    const REPETITION: &str = include_str!("../../../tests/perft/repetition-pyffish.txt");
    let defs = Definitions::builtin();
    let mut lines = 0;
    for line in REPETITION.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let [variant, fen, moves, want] = line.split(';').collect::<Vec<_>>()[..] else { panic!("bad line {line}") };
        let def = defs.get(variant).unwrap_or_else(|| panic!("no variant {variant}"));
        let mut game = menagerie_rules::Game::new(Position::from_fen(def, fen).expect("the FEN reads"));
        for text in moves.split_whitespace() {
            let m = game.current().parse_move(text).unwrap_or_else(|e| panic!("{line}: {text}: {e}"));
            game.play(m);
        }
        let white = game.current().white_to_move();
        let ours = match game.claimable().map(|o| o.result) {
            None => "-",
            Some(GameResult::Draw) => "draw",
            Some(GameResult::WhiteWins) if white => "win",
            Some(GameResult::BlackWins) if !white => "win",
            Some(_) => "loss",
        };
        assert_eq!(ours, want, "{line}");
        lines += 1;
    }
    assert!(lines >= 14, "{lines} lines");
}

/// `promotionLimit`: a pawn promotes only to a type of which its side has
/// fewer pieces on the board than the limit. In grand chess (limits 1 for
/// a, c, q and 2 for r, b, n, promotion optional on the 8th and 9th ranks)
/// a pawn with no type left may not move to the 10th rank; the counts are
/// pyffish 0.0.90's.
#[test]
fn promotion_limit_bars_exhausted_types_as_fairy_stockfish() {
    let defs = Definitions::builtin();
    let grand = defs.get("grand").expect("grand is built in");
    let pawn_moves = |fen: &str| {
        let pos = Position::from_fen(grand, fen).expect("the FEN reads");
        let all: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
        let mut pawn: Vec<String> =
            all.iter().filter(|m| m.starts_with("d8") || m.starts_with("e9")).cloned().collect();
        pawn.sort();
        (pawn, all.len())
    };
    // One knight missing: only the knight is left to promote to.
    let (pawn, n) = pawn_moves("k9/4P5/3P6/10/10/10/10/10/1NBQKCABR1/R9 w - - 0 1");
    assert_eq!((pawn, n), (vec!["d8d9".to_string(), "d8d9n".into(), "e9e10n".into()], 112));
    // Nothing missing: the pawn on the 9th rank cannot move at all.
    let (pawn, n) = pawn_moves("k9/4P5/3P6/10/10/10/10/10/1NBQKCABN1/R8R w - - 0 1");
    assert_eq!((pawn, n), (vec!["d8d9".to_string()], 120));

    // Mandatory promotion (chess's) with a queen and a knight on the board
    // and `promotionLimit = q:1 n:1`: b8r and b8b only; perft's counting
    // path agrees with the move list.
    let mut defs = Definitions::builtin();
    defs.load("[limited:chess]\npromotionLimit = q:1 n:1\n", "limited.ini").expect("the section loads");
    let limited = defs.get("limited").expect("loaded");
    let pos = Position::from_fen(limited, "4k3/1P6/8/8/8/8/8/QN2K3 w - - 0 1").expect("the FEN reads");
    let mut promotions: Vec<String> =
        pos.legal_moves().into_iter().map(|m| pos.move_text(m)).filter(|m| m.starts_with("b7")).collect();
    promotions.sort();
    assert_eq!(promotions, ["b7b8b", "b7b8r"]);
    assert_eq!([pos.perft(1), pos.perft(2), pos.perft(3)], [24, 98, 2795]);

    for bad in ["q1", "q:x", "z:1", "qq:1"] {
        let text = format!("[bad:chess]\npromotionLimit = {bad}\n");
        assert!(Definitions::builtin().load(&text, "bad.ini").is_err(), "{bad}");
    }
}

/// Sittuyin's promotions read back from their coordinate form and SAN
/// (Fairy-Stockfish's: `a2=F` in place, `a2b1=F` onto another square) at
/// every position of the committed file, and the draw a side with king
/// and one pawn that may only promote may claim (pyffish 0.0.90's
/// `is_optional_game_end`), rooks dropped on the back rank only.
#[test]
fn sittuyin_promotions_read_back_and_the_stalemate_draw_is_claimable() {
    let defs = Definitions::builtin();
    let sittuyin = defs.get("sittuyin").expect("sittuyin is built in");
    let mut promotions = 0;
    for line in SITTUYIN.lines().filter(|l| !l.starts_with('#')) {
        let fen = line.split(';').nth(1).expect("a FEN field");
        let pos = Position::from_fen(sittuyin, fen).expect("the FEN reads");
        for m in pos.legal_moves() {
            if m.promotion().is_some() {
                promotions += 1;
                assert_eq!(pos.parse_move(&pos.move_text(m)), Ok(m), "{} in {fen}", pos.move_text(m));
                assert_eq!(pos.parse_san(&pos.san(m)), Ok(m), "{} in {fen}", pos.san(m));
                assert_eq!(menagerie_rules::Move::unpack(m.pack()), Some(m), "{} in {fen}", pos.move_text(m));
            }
        }
    }
    assert!(promotions >= 50, "{promotions} promotions");

    // King and pawn, the pawn blocked, the king's squares covered: only
    // promotions are legal, and the draw may be claimed.
    let fen = "1r5k/8/8/8/8/n7/P7/K7[] w - - 0 1";
    let pos = Position::from_fen(sittuyin, fen).expect("the FEN reads");
    let mut sans: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.san(m)).collect();
    sans.sort();
    assert_eq!(sans, ["a2=F", "a2b1=F", "a2b3=F"]);
    assert_eq!(pos.outcome(), None);
    let game = menagerie_rules::Game::new(pos);
    assert_eq!(game.claimable().map(|o| o.result), Some(GameResult::Draw));
    // With a rook besides, the game goes on.
    let pos = Position::from_fen(sittuyin, "1r5k/8/8/8/8/n7/P7/K5R1[] w - - 0 1").expect("the FEN reads");
    assert_eq!(menagerie_rules::Game::new(pos).claimable(), None);

    // Rooks in hand go to the back rank only; the other pieces anywhere
    // on the three nearest ranks.
    let pos = Position::from_fen(sittuyin, "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KRkr] w - - 0 1").expect("FEN");
    let drops: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
    assert_eq!(drops.iter().filter(|m| m.starts_with("R@")).count(), 8);
    assert!(drops.iter().all(|m| !m.starts_with("R@") || m.ends_with('1')));
    assert_eq!(drops.iter().filter(|m| m.starts_with("K@")).count(), 20);
}
