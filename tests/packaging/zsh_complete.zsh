# zsh's own completion system in a real interactive shell (zsh/zpty): types WORDS and a Tab, and waits until
# EXPECTED appears in what zle writes (only the inserted characters: "torchdeck su" -> "bmit").
# Usage: zsh -f zsh_complete.zsh COMPLETIONS_DIR SCRATCH_DIR BIN_DIR WORDS EXPECTED   (run under timeout)
zmodload zsh/zpty
zpty shell zsh -f -i
zpty -w shell "PS1='> '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -d $2/zcompdump; PATH=$3:\$PATH"
zpty -w -n shell "$4"$'\t'
zpty -r shell output "*$5*"
