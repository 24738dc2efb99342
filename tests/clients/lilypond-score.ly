% LilyPond score engraved by tests/clients/lilypond.sh on stock libgc and on
% bibop: two staves with repeats, chords, a tuplet, ornaments and lyrics;
% \displayLilyMusic prints both voices on stdout.
\version "2.24.0"
\header { title = "bibop" composer = "tests/clients/lilypond.sh" tagline = ##f }
upper = \relative c'' {
  \key g \major \time 3/4
  \repeat volta 2 { g4 b8 d g4 | fis8 e d c b a | g4 <b d>2 | r8 a16 b c d e fis g4 | }
  \tuplet 3/2 { g8 fis e } d4 \trill c | b2. \fermata \bar "|."
}
lower = \relative c {
  \clef bass \key g \major \time 3/4
  \repeat volta 2 { g4 d' g | d, fis a | g2 b4 | c d d, | }
  g4 b d | g,2. \bar "|."
}
chant = \lyricmode { \repeat unfold 8 { la li lo } }
\displayLilyMusic \upper
\displayLilyMusic \lower
\score {
  << \new Staff \upper \addlyrics \chant \new Staff \lower >>
  \layout { }
}
