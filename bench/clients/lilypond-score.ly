% bench/run-clients.sh, lilypond-score: LilyPond (Guile 2.2 and its own
% C++ objects, all on libgc) engraves a song: a melody with lyrics over a
% piano part, with chords, dynamics and slurs; 48 bars, to PostScript.
\version "2.24.0"
\header { title = "Benchmark Song" tagline = ##f }
melody = \relative c'' {
  \clef treble \key g \major \time 4/4
  \repeat unfold 6 {
    g4\p( a b c) | d2 b4 g | e'4.\< d8 c4 b\! | a1 |
    b4( c d e) | fis2 d4 b | c4.\> b8 a4 g\! | g1 |
  }
}
words = \lyricmode {
  \repeat unfold 6 {
    Sing a song of morn -- ing, sun a -- bove the hill,
    all the birds are wak -- ing, qui -- et, warm and still.
  }
}
upper = \relative c' {
  \clef treble \key g \major
  \repeat unfold 6 {
    <g b d>2 <a c e> | <b d g>2 <g b d> | <c e g>2 <a c e> | <d fis a>1 |
    <b d g>2 <c e g> | <d fis a>2 <b d fis> | <c e a>2 <d fis a> | <b d g>1 |
  }
}
lower = \relative c {
  \clef bass \key g \major
  \repeat unfold 6 {
    g4 d' b d | g,4 d' b d | c4 g' e g | d4 a' fis a |
    g,4 d' b d | d4 a' fis a | c,4 g' d fis | g,1 |
  }
}
\score {
  <<
    \new Voice = "mel" \melody
    \new Lyrics \lyricsto "mel" \words
    \new PianoStaff << \new Staff \upper \new Staff \lower >>
  >>
  \layout { }
}
