//! Board pictures of a request's position, in any variant: the one drawing
//! task of the server's RenderBoard and the CLI's `svg`.

use crate::{PositionError, PositionRequest, Variants};
use menagerie_render::{BoardRequest, OptionError, RenderError, request_options};

/// Why a picture could not be drawn.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum BoardError {
    /// The request's position.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// A drawing option (an arrow, a highlight, the size), its field named.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// The picture itself.
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl Variants {
    /// The SVG picture of the position `position` describes, drawn as
    /// `board` asks (its variant, FEN and moves are not read), the last
    /// move shaded and a king in check marked.
    pub fn render_board<S: AsRef<str>>(
        &self,
        position: &PositionRequest<'_, S>,
        board: &BoardRequest<'_>,
    ) -> Result<String, BoardError> {
        let game = self.game(position)?;
        let (files, ranks) = game.current().size();
        let last_move = game.moves().last().and_then(|&m| menagerie_render::last_move_squares(m));
        let options = request_options(board, files, ranks, last_move)?;
        Ok(menagerie_render::render_position(game.current(), &options)?)
    }
}
