"""Real text: four equal-size models (decoder, encoder, prefix-LM, encoder-decoder) trained by the project on a
shipped public-domain corpus, and what their attention does on a student's own sentence (issue 38)."""
