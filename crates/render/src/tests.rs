use super::*;

fn req<'a>(variant: &'a str) -> BoardRequest<'a> {
    BoardRequest { variant, ..BoardRequest::default() }
}

/// Checks that tags nest and close, attributes are quoted, and there is one
/// root element: enough to catch broken output without an XML parser.
fn assert_well_formed(svg: &str) {
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg:.80}");
    assert!(svg.ends_with("</svg>\n"));
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        assert!(!text.contains('>') && !text.contains('&') || text.contains("&amp;"), "stray text {text:?}");
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes in <{tag}>");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else {
            let name = tag.split_whitespace().next().unwrap_or("").trim_end_matches('/').to_string();
            assert!(!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphabetic()), "bad tag <{tag}>");
            if stack.is_empty() {
                roots += 1;
            }
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1);
    assert_eq!(rest, "\n");
}

/// The value of `attr` in the first element whose text contains `marker`.
fn attr(svg: &str, marker: &str, attr: &str) -> String {
    let at = svg.find(marker).unwrap_or_else(|| panic!("{marker} not found"));
    let start = svg[..at].rfind('<').unwrap();
    let end = at + svg[at..].find('>').unwrap();
    let tag = &svg[start..end];
    let key = format!(" {attr}=\"");
    let v = tag.find(&key).unwrap_or_else(|| panic!("no {attr} in {tag}")) + key.len();
    tag[v..v + tag[v..].find('"').unwrap()].to_string()
}

fn square_xy(svg: &str, name: &str) -> (i32, i32) {
    let marker = format!("id=\"sq-{name}\"");
    (attr(svg, &marker, "x").parse().unwrap(), attr(svg, &marker, "y").parse().unwrap())
}

#[test]
fn every_variant_start_is_well_formed_and_deterministic() {
    for v in VariantId::ALL {
        let a = render_request(&req(v.name())).unwrap();
        assert_well_formed(&a);
        assert_eq!(a, render_request(&req(v.name())).unwrap(), "{v}");
        let (files, ranks) = v.size();
        assert_eq!(a.matches("class=\"square ").count(), usize::from(files) * usize::from(ranks));
        assert_eq!(
            a.matches("<g class=\"piece ").count(),
            32 + if v.size().0 == 10 { 8 } else { 0 } + reserve_count(*v)
        );
    }
}

fn reserve_count(v: VariantId) -> usize {
    match v {
        VariantId::Alpaca | VariantId::AlpacaSameFile | VariantId::Alseid | VariantId::AlseidWeak => 2,
        VariantId::Alpaca2 => 4,
        _ => 0,
    }
}

#[test]
fn every_piece_kind_is_drawn_in_both_colours() {
    let positions = [
        ("alpaca", "rnbqkbnr/pppppppp/8/8/3A4/3a4/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ("alseid", "rnbqkbnr/pppppppp/8/8/3S4/3s4/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ("camel-rhino", ""),
    ];
    let mut all = String::new();
    for (variant, fen) in positions {
        let svg = render_request(&BoardRequest { variant, fen, ..BoardRequest::default() }).unwrap();
        assert_well_formed(&svg);
        all.push_str(&svg);
    }
    for kind in PieceKind::ALL {
        for color in ["white", "black"] {
            let class = format!("class=\"piece {color}-{}\"", kind.name().to_ascii_lowercase());
            assert!(all.contains(&class), "{class} missing");
        }
    }
    // Each kind's figure differs from every other's.
    let figures: Vec<String> = PieceKind::ALL
        .iter()
        .map(|&k| {
            let mut s = String::new();
            pieces::draw(&mut s, Piece::new(Color::White, k), 0.0, 0.0, 1.0);
            s.split_once('>').unwrap().1.to_string()
        })
        .collect();
    for (i, a) in figures.iter().enumerate() {
        for b in &figures[i + 1..] {
            assert_ne!(a, b);
        }
    }
    // White: light body, dark outline; Black the other way round.
    let (mut w, mut b) = (String::new(), String::new());
    pieces::draw(&mut w, Piece::new(Color::White, PieceKind::Camel), 0.0, 0.0, 1.0);
    pieces::draw(&mut b, Piece::new(Color::Black, PieceKind::Camel), 0.0, 0.0, 1.0);
    assert!(w.contains("fill=\"#f7f4ec\" stroke=\"#1d1d1d\""));
    assert!(b.contains("fill=\"#262422\" stroke=\"#eeeae0\""));
}

#[test]
fn orientation_flips_the_board() {
    for (variant, last, first_file) in [("chess", "h8", 'a'), ("camel-rhino", "j10", 'a')] {
        let white = render_request(&req(variant)).unwrap();
        let black = render_request(&BoardRequest { flip: true, ..req(variant) }).unwrap();
        let (files, _) = VariantId::from_name(variant).unwrap().size();
        let far = MARGIN + (i32::from(files) - 1) * SQUARE;
        // White at the bottom: a1 bottom-left, last square top-right.
        assert_eq!(square_xy(&white, "a1"), (MARGIN, far));
        assert_eq!(square_xy(&white, last), (far, MARGIN));
        // Black at the bottom: a1 top-right.
        assert_eq!(square_xy(&black, "a1"), (far, MARGIN));
        assert_eq!(square_xy(&black, last), (MARGIN, far));
        // The file letters run the other way.
        let letter_x = |svg: &str| attr(svg, &format!(">{first_file}</text>"), "x").parse::<i32>().unwrap();
        assert_eq!(letter_x(&white), MARGIN + SQUARE / 2);
        assert_eq!(letter_x(&black), far + SQUARE / 2);
        // Pieces move with their squares: the white rook on a1.
        let rook = attr(&black, "class=\"piece white-rook\"", "transform");
        assert_eq!(rook, format!("translate({far} {MARGIN})"));
    }
}

#[test]
fn arrows_highlights_last_move_and_check() {
    let svg = render_request(&BoardRequest {
        variant: "chess",
        moves: &["f3", "e5", "g4", "Qh4#"],
        arrows: &["d8h4:red", "g1f3", "e4e4:#0a0"],
        highlights: &["e1", "f2:yellow"],
        ..BoardRequest::default()
    })
    .unwrap();
    assert_well_formed(&svg);
    assert!(svg.contains("class=\"arrow arrow-d8h4\""));
    assert!(svg.contains("fill=\"#d2352b\" fill-opacity=\"0.8\""));
    assert!(svg.contains("class=\"arrow arrow-g1f3\" "));
    assert!(svg.contains("fill=\"#3a9a3a\""));
    assert!(svg.contains("<circle class=\"arrow\"") && svg.contains("stroke=\"#00aa00\""));
    assert_eq!(svg.matches("class=\"highlight\"").count(), 2);
    assert!(svg.contains("fill=\"#e6c21e\" fill-opacity=\"0.5\""));
    // Last move d8-h4, and the white king on e1 in check.
    assert_eq!(svg.matches("class=\"last-move\"").count(), 2);
    let (x, y) = square_xy(&svg, "h4");
    assert!(svg.contains(&format!("<rect class=\"last-move\" x=\"{x}\" y=\"{y}\"")));
    let (kx, ky) = square_xy(&svg, "e1");
    assert!(svg.contains(&format!("class=\"check\" cx=\"{}\" cy=\"{}\"", kx + 50, ky + 50)));
    // No check, no glow; no arrows, no arrow group.
    let quiet = render_request(&req("chess")).unwrap();
    assert!(!quiet.contains("class=\"check\"") && !quiet.contains("class=\"arrows\""));
    assert!(!quiet.contains("last-move"));
}

#[test]
fn ten_by_ten_squares_and_arrows() {
    let svg = render_request(&BoardRequest {
        variant: "camel-rhino",
        moves: &["i2h5"],
        arrows: &["a10j1:blue"],
        highlights: &["j10"],
        ..BoardRequest::default()
    });
    let svg = svg.unwrap();
    assert_well_formed(&svg);
    assert!(svg.contains("id=\"sq-j10\"") && svg.contains("arrow-a10j1"));
    assert!(svg.contains("viewBox=\"0 0 1072 1072\""));
    assert!(svg.contains(">10</text>"));
}

/// An 8x8 gating board after `accept A@g A@b`: the prelude is over (no
/// pending mark) and two gate marks show where the Alpacas wait: White's
/// below the g file, Black's above the b file.
#[track_caller]
fn assert_gates_on_g_and_b(placed: &str) {
    assert!(!placed.contains("class=\"pending\""));
    assert_eq!(placed.matches("class=\"gate\"").count(), 2);
    let g_center = MARGIN + 6 * SQUARE + SQUARE / 2;
    let b_center = MARGIN + SQUARE + SQUARE / 2;
    assert!(placed.contains(&format!("L{g_center} {}", MARGIN + STRIP + 8 * SQUARE + MARGIN + 2)));
    assert!(placed.contains(&format!("L{b_center} {}", STRIP - 2)));
}

#[test]
fn reserve_pieces_and_gate_marks() {
    let start = render_request(&req("alpaca")).unwrap();
    assert_well_formed(&start);
    // Two reserve strips, the pending `?`, no gate marks yet.
    assert!(start.contains("viewBox=\"0 0 872 1052\""));
    assert_eq!(start.matches("class=\"pending\"").count(), 2);
    assert!(!start.contains("class=\"gate\""));
    assert_eq!(start.matches("scale(0.7)").count(), 2);

    let placed = render_request(&BoardRequest { moves: &["accept", "A@g", "A@b"], ..req("alpaca") }).unwrap();
    assert_well_formed(&placed);
    assert_gates_on_g_and_b(&placed);
    // Prelude actions shade no squares.
    assert!(!placed.contains("last-move"));

    // Chess has no strips; a gating variant keeps them when the reserve is used up.
    assert!(render_request(&req("chess")).unwrap().contains("viewBox=\"0 0 872 872\""));
    let gated = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let svg = render_request(&BoardRequest { fen: gated, ..req("alseid") }).unwrap();
    assert!(svg.contains("viewBox=\"0 0 872 1052\""));
}

#[test]
fn size_sets_the_pixel_width() {
    let svg = render_request(&BoardRequest { size: 200, ..req("alpaca") }).unwrap();
    assert!(svg.contains("width=\"200\" height=\"241\""), "{svg:.200}");
}

#[test]
fn bad_input_is_an_error() {
    let err = |r: BoardRequest<'_>| render_request(&r).unwrap_err();
    assert!(matches!(err(req("tamerlane")), RenderError::UnknownVariant(_)));
    assert!(matches!(err(BoardRequest { fen: "8/8 w - -", ..req("chess") }), RenderError::Fen(_)));
    let e = err(BoardRequest { moves: &["e4", "e4"], ..req("chess") });
    assert!(matches!(e, RenderError::Move { index: 2, .. }), "{e}");
    assert!(e.to_string().starts_with("move 2: "), "{e}");
    assert!(e.is_illegal_move());
    let e = err(BoardRequest { moves: &["xyzzy"], ..req("chess") });
    assert!(matches!(e, RenderError::Move { index: 1, .. }) && !e.is_illegal_move());
    for a in ["e2", "e2e9", "e2e4:mauve", "", "z1z2", "e2e4:#12345", "e0e4", "e2e4x"] {
        let arrows = [a];
        let e = err(BoardRequest { arrows: &arrows, ..req("chess") });
        assert!(
            matches!(e, RenderError::Arrow { .. } | RenderError::Square { .. } | RenderError::Color(_)),
            "{a}: {e}"
        );
    }
    for h in ["i1", "e4:", "e44", "j11"] {
        let highlights = [h];
        assert!(render_request(&BoardRequest { highlights: &highlights, ..req("camel-rhino") }).is_err() || h == "i1");
    }
    assert!(matches!(err(BoardRequest { highlights: &["i1"], ..req("chess") }), RenderError::Square { .. }));
    assert!(matches!(err(BoardRequest { size: 0, ..req("chess") }), RenderError::Size(0)));
    assert!(matches!(err(BoardRequest { size: 100_000, ..req("chess") }), RenderError::Size(_)));
    // Off-board squares given as values, not text.
    let pos = AnyPosition::start(VariantId::Chess);
    let options = RenderOptions { last_move: Some((Square(0), Square(64))), ..RenderOptions::default() };
    assert!(matches!(render(&pos, &options), Err(RenderError::Square { .. })));
    // Long input is quoted short.
    let long = "x".repeat(1000);
    assert!(err(BoardRequest { variant: &long, ..req("chess") }).to_string().len() < 200);
}

#[test]
fn colours_parse() {
    assert_eq!(SvgColor::parse("RED").unwrap().hex(), "#d2352b");
    assert_eq!(SvgColor::parse("#AbC").unwrap().hex(), "#aabbcc");
    assert_eq!(SvgColor::parse("#00ff7F").unwrap().hex(), "#00ff7f");
    for bad in ["", "#", "#ggg", "url(#x)", "red\"/><script>", "#1234"] {
        assert!(SvgColor::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn numbers_are_formatted_plainly() {
    assert_eq!(num(100.0), "100");
    assert_eq!(num(0.6), "0.6");
    assert_eq!(num(-0.0001), "0");
    assert_eq!(num(12.345), "12.35");
    assert_eq!(num(-7.5), "-7.5");
}

#[test]
fn coordinates_can_be_left_out() {
    let with = render_request(&req("camel-rhino")).unwrap();
    let without = render_request(&BoardRequest { coordinates: false, ..req("camel-rhino") }).unwrap();
    assert_eq!(with.matches("class=\"coordinates\"").count(), 1);
    // Ten file letters and ten rank numbers; the fairy pieces' letters stay.
    assert_eq!(with.matches("</text>").count() - without.matches("</text>").count(), 20);
    assert!(!without.contains("class=\"coordinates\""));
    assert_well_formed(&without);
}

fn definition(name: &str) -> std::sync::Arc<menagerie_rules::VariantDef> {
    menagerie_rules::Definitions::builtin().get(name).cloned().expect("built in")
}

/// A data position drawn with the default options, as well-formed SVG.
#[track_caller]
fn drawn(pos: &menagerie_rules::Position) -> String {
    let svg = render_data(pos, &RenderOptions::default()).expect("renders");
    assert_well_formed(&svg);
    svg
}

#[test]
fn walls_are_drawn_as_dark_squares_under_no_piece() {
    let pos = menagerie_rules::Position::start(&definition("troitzky"));
    let svg = drawn(&pos);
    // Troitzky's rounded board: 8 + 4 + 2 + 2 walls at each end.
    assert_eq!(svg.matches("class=\"wall\"").count(), 32);
    assert_eq!(svg.matches("class=\"piece ").count(), 32);
    assert!(svg.contains("<title>troitzky ****qk****/"));
}

#[test]
fn capablanca_is_drawn_on_its_10x8_board_with_its_pieces() {
    let def = definition("capablanca");
    let pos = menagerie_rules::Position::start(&def);
    let svg = drawn(&pos);
    assert_eq!(svg.matches("class=\"square ").count(), 80);
    assert!(svg.contains("id=\"sq-j8\"") && !svg.contains("id=\"sq-k1\"") && !svg.contains("id=\"sq-a9\""));
    // 10 x 100 squares and the 36-unit frame.
    assert!(svg.contains("viewBox=\"0 0 1072 872\""), "{svg:.200}");
    assert!(
        svg.contains("<title>capablanca rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1</title>")
    );
    assert_eq!(svg.matches("class=\"piece ").count(), 40);
    // The orthodox pieces as figures, the archbishop and chancellor as letters in circles.
    assert_eq!(svg.matches("class=\"piece white-pawn\"").count(), 10);
    assert_eq!(svg.matches("class=\"piece black-pawn\"").count(), 10);
    assert_eq!(svg.matches("class=\"piece white-king\"").count(), 1);
    for (piece, n) in [("white-letter-a", 1), ("black-letter-a", 1), ("white-letter-c", 1), ("black-letter-c", 1)] {
        assert_eq!(svg.matches(&format!("class=\"piece {piece}\"")).count(), n, "{piece}");
    }
    assert!(svg.contains(">A</text>") && svg.contains(">C</text>"));
    // The archbishop stands on c1: its glyph is at that square's corner.
    assert!(svg.contains("<g class=\"piece white-letter-a\" transform=\"translate(236 736)\""), "{svg}");
}

#[test]
fn games_defined_as_data_get_check_arrows_and_their_own_pieces() {
    let def = definition("capablanca");
    let mate = menagerie_rules::Position::from_fen(&def, "kQ8/2K7/10/10/10/10/10/10 b - - 0 1").expect("a FEN");
    let options = RenderOptions {
        arrows: vec![Arrow::parse_on(10, 8, "j1a8:red").expect("on 10x8")],
        highlights: vec![Highlight::parse_on(10, 8, "j8").expect("on 10x8")],
        last_move: Some((Square(1), Square(71))),
        ..RenderOptions::default()
    };
    let svg = render_data(&mate, &options).expect("renders");
    assert_well_formed(&svg);
    assert!(svg.contains("class=\"check\"") && svg.contains("arrow-j1a8") && svg.contains("class=\"highlight\""));
    assert!(Arrow::parse_on(10, 8, "k1a8").is_err() && Highlight::parse_on(10, 8, "a9").is_err());
    let off = RenderOptions {
        highlights: vec![Highlight { square: Square(80), color: SvgColor::parse("red").expect("a colour") }],
        ..RenderOptions::default()
    };
    assert!(matches!(render_data(&mate, &off), Err(RenderError::Square { files: 10, ranks: 8, .. })));
    // Makruk: pieces named by their definition, letters for the Thai ones.
    let makruk = definition("makruk");
    let svg = render_data(&menagerie_rules::Position::start(&makruk), &RenderOptions::default()).expect("renders");
    assert_well_formed(&svg);
    assert_eq!(svg.matches("class=\"square ").count(), 64);
    assert_eq!(svg.matches("class=\"piece ").count(), 32);
    assert!(svg.contains("white-letter-s") && svg.contains("black-letter-m"), "{svg}");
}

#[test]
fn s_chess_pieces_in_hand_are_drawn_beside_the_board_until_gated() {
    let def = definition("seirawan");
    let start = menagerie_rules::Position::start(&def);
    let svg = drawn(&start);
    // Two reserve strips around the 8x8 board, as for Alpaca.
    assert!(svg.contains("viewBox=\"0 0 872 1052\""), "{svg:.200}");
    // Hawk and elephant of each side, in hand, small, on tiles.
    for piece in ["white-letter-h", "white-letter-e", "black-letter-h", "black-letter-e"] {
        assert_eq!(svg.matches(&format!("class=\"piece {piece}\"")).count(), 1, "{piece}");
    }
    assert_eq!(svg.matches("class=\"tile\"").count(), 4);
    assert_eq!(svg.matches("scale(0.7)").count(), 4);
    assert!(!svg.contains("class=\"pending\"") && !svg.contains("class=\"gate\""));
    // White's hand in the strip below the board, Black's above it.
    let below = MARGIN + STRIP + 8 * SQUARE + MARGIN;
    let white_hawk = attr(&svg, "class=\"piece white-letter-h\"", "transform");
    let black_hawk = attr(&svg, "class=\"piece black-letter-h\"", "transform");
    let y = |t: &str| -> f64 { t.split([' ', ')']).nth(1).and_then(|v| v.parse().ok()).expect("a y") };
    assert!(y(&white_hawk) > f64::from(below), "{white_hawk}");
    assert!(y(&black_hawk) < f64::from(STRIP), "{black_hawk}");

    // Each side gates both pieces: the hands are empty, the strips stay,
    // and the gated pieces stand on the board.
    let mut pos = start;
    for text in ["g1f3h", "g8f6h", "b1c3e", "b8c6e"] {
        pos = pos.play(pos.parse_move(text).expect("legal"));
    }
    assert!(pos.fen().starts_with("rebqkbhr/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/REBQKBHR[]"), "{}", pos.fen());
    let svg = drawn(&pos);
    assert!(svg.contains("viewBox=\"0 0 872 1052\""));
    assert!(!svg.contains("class=\"tile\"") && !svg.contains("scale(0.7)"));
    assert_eq!(svg.matches("class=\"piece ").count(), 36);
    // Variants without pieces in hand have no strips.
    let svg = render_data(&menagerie_rules::Position::start(&definition("makruk")), &RenderOptions::default())
        .expect("renders");
    assert!(svg.contains("viewBox=\"0 0 872 872\""));
}

#[test]
fn request_options_read_the_drawing_fields_for_any_board() {
    let arrows = ["j1a8:red", "a1b2"];
    let highlights = ["j8:yellow"];
    let drawing =
        BoardRequest { arrows: &arrows, highlights: &highlights, flip: true, size: 300, coordinates: false, ..req("") };
    let last = Some((Square(1), Square(71)));
    let o = request_options(&drawing, 10, 8, last).expect("fits 10x8");
    assert_eq!(o.size, 300);
    assert_eq!(o.orientation, Color::Black);
    assert!(!o.coordinates && o.check);
    assert_eq!(o.last_move, last);
    assert_eq!(o.arrows, vec![Arrow::parse_on(10, 8, "j1a8:red").unwrap(), Arrow::parse_on(10, 8, "a1b2").unwrap()]);
    assert_eq!(o.highlights, vec![Highlight::parse_on(10, 8, "j8:yellow").unwrap()]);
    // The same request on an 8x8 board: the field at fault is named.
    let e = request_options(&drawing, 8, 8, None).unwrap_err();
    assert_eq!(e.field, "arrows[0]");
    assert!(matches!(e.error, RenderError::Arrow { .. }), "{e}");
    let e = request_options(&BoardRequest { highlights: &["e4", "e4:mauve"], ..req("") }, 8, 8, None).unwrap_err();
    assert_eq!((e.field.as_str(), e.error), ("highlights[1]", RenderError::Color("mauve".into())));
    let e = request_options(&BoardRequest { size: 9, ..req("") }, 8, 8, None).unwrap_err();
    assert_eq!((e.field.as_str(), e.error.clone()), ("size", RenderError::Size(9)));
    assert_eq!(e.to_string(), RenderError::Size(9).to_string());
    // The compiled request reads its options the same way.
    let (_, compiled) = parse_request(&BoardRequest { variant: "camel-rhino", ..drawing }).expect("fits 10x10");
    assert_eq!(compiled, RenderOptions { last_move: None, ..o });
}

#[test]
fn pioneer_gating_defined_as_data_is_drawn_like_the_compiled_alpaca() {
    let mut defs = menagerie_rules::Definitions::builtin();
    defs.load(menagerie_rules::MENAGERIE_INI, "menagerie.ini").expect("loads");
    let def = defs.get("alpaca").cloned().expect("defined");
    let start = menagerie_rules::Position::start(&def);
    let svg = drawn(&start);
    assert!(svg.contains("viewBox=\"0 0 872 1052\""));
    assert_eq!(svg.matches("class=\"pending\"").count(), 2);
    assert!(!svg.contains("class=\"gate\""));
    let mut pos = start;
    for text in ["accept", "A@g", "A@b"] {
        pos = pos.play(pos.parse_move(text).expect("legal"));
    }
    let placed = render_data(&pos, &RenderOptions::default()).expect("renders");
    assert_gates_on_g_and_b(&placed);
    // The compiled game marks the same gates (its Alpaca has a figure, the
    // data piece a letter).
    let compiled = render_request(&BoardRequest { moves: &["accept", "A@g", "A@b"], ..req("alpaca") }).unwrap();
    let gates =
        |s: &str| -> Vec<String> { s.split("<path class=\"gate\"").skip(1).map(|g| g[..30].to_string()).collect() };
    assert_eq!(gates(&placed), gates(&compiled));
}
