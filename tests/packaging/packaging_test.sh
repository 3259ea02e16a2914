#!/usr/bin/env bash
# The desktop packaging: install, validators, completions, the man page, the options table and the .deb.
# Usage: packaging_test.sh CASE   (ctest sets TORCHDECK_SOURCE_DIR, TORCHDECK_BUILD_DIR and TORCHDECK_BIN)
set -euo pipefail
scratch=$(mktemp -d)
# A window the case opens starts the agent of its store ($scratch/data): stopped before the store goes.
trap 'TORCHDECK_DATA_DIR=$scratch/data timeout 60 "$TORCHDECK_BIN" agent stop >/dev/null 2>&1; rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || fail "$1 is missing (scripts/install-deps installs it)"; }
app_id=org.torchdeck.torchdeck

# A user with no clusters, runs or settings of their own: everything the binary reads lives in $scratch.
export HOME=$scratch/home XDG_CONFIG_HOME=$scratch/home/.config XDG_DATA_HOME=$scratch/home/.local/share
export TORCHDECK_SSH_CONFIG=$scratch/ssh_config TORCHDECK_DATA_DIR=$scratch/data TORCHDECK_CONFIG_DIR=$scratch/config
export EDITOR=false VISUAL=false
mkdir -p "$HOME" "$TORCHDECK_DATA_DIR" "$TORCHDECK_CONFIG_DIR"
printf 'Host alpha\n  HostName alpha.invalid\nHost beta gamma\n  User someone\nHost *.internal\n  User x\n' \
  >"$TORCHDECK_SSH_CONFIG"

install_into() { # DESTDIR install of the build tree's install rules
  DESTDIR=$1 cmake --install "$TORCHDECK_BUILD_DIR" --prefix /usr >/dev/null
}

case_install() { # every file in place, the validators pass, the installed binary runs on its own
  need desktop-file-validate; need appstreamcli; need groff
  install_into "$scratch/root"
  local usr=$scratch/root/usr f
  local files=(bin/torchdeck "share/applications/$app_id.desktop" "share/metainfo/$app_id.metainfo.xml"
               "share/icons/hicolor/scalable/apps/$app_id.svg" share/man/man1/torchdeck.1
               share/bash-completion/completions/torchdeck share/zsh/vendor-completions/_torchdeck
               share/fish/vendor_completions.d/torchdeck.fish)
  for size in 16 22 24 32 48 64 128 256; do files+=("share/icons/hicolor/${size}x$size/apps/$app_id.png"); done
  for f in "${files[@]}"; do [[ -s "$usr/$f" ]] || fail "the install lacks $f"; done
  [[ ! -e "$usr/bin/torchdeck-train" ]] || fail "torchdeck-train was installed (it is built on the clusters)"
  desktop-file-validate "$usr/share/applications/$app_id.desktop" || fail "desktop-file-validate"
  appstreamcli validate --no-net --pedantic "$usr/share/metainfo/$app_id.metainfo.xml" || fail "appstreamcli validate"
  local warnings
  warnings=$(groff -man -Tutf8 -ww -z "$usr/share/man/man1/torchdeck.1" 2>&1)
  [[ -z "$warnings" ]] || fail "groff warns about the man page: $warnings"
  grep -q 'JOB OPTIONS' <<<"$(MANWIDTH=100 man -l "$usr/share/man/man1/torchdeck.1" 2>/dev/null)" || fail "man -l"
  # The installed binary, with the build tree out of reach: the version matches the newest AppStream release.
  local version
  version=$(cd / && env -u LD_LIBRARY_PATH "$usr/bin/torchdeck" --version) || fail "--version"
  grep -q "<release version=\"${version#torchdeck }\"" "$usr/share/metainfo/$app_id.metainfo.xml" ||
    fail "$version has no <release> in the metainfo"
  grep -q "^Icon=$app_id$" "$usr/share/applications/$app_id.desktop" || fail "the entry's icon name"
}

case_completions() { # bash (completing `torchdeck su` gives submit), zsh and fish
  need zsh; need fish
  install_into "$scratch/root"
  local share=$scratch/root/usr/share out
  export PATH=$(dirname "$TORCHDECK_BIN"):$PATH
  out=$(bash -c "source '$share/bash-completion/completions/torchdeck'; complete -p torchdeck")
  [[ "$out" == "complete -F _torchdeck torchdeck" ]] || fail "complete -p torchdeck: $out"
  complete_bash() { # the words a Tab offers after "$@"
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _torchdeck; printf "%s\n" "${COMPREPLY[@]}"' \
      _ "$share/bash-completion/completions/torchdeck" "$@" | sort | paste -sd' '
  }
  expect() { [[ "$2" == "$3" ]] || fail "$1: got '$2', wanted '$3'"; }
  expect "torchdeck su" "$(complete_bash torchdeck su)" "submit"
  expect "torchdeck ch" "$(complete_bash torchdeck ch)" "check checkpoints"
  expect "clusters from the ssh config" "$(complete_bash torchdeck submit '')" "alpha beta gamma"
  expect "a cluster's prefix" "$(complete_bash "$TORCHDECK_BIN" check g)" "gamma"
  expect "--launch values" "$(complete_bash torchdeck submit alpha --launch s)" "srun srun-per-node"
  expect "options" "$(complete_bash torchdeck logs x --f)" "--follow"
  expect "the second operand" "$(complete_bash torchdeck auto-restart x '')" "off on"
  expect "a free value" "$(complete_bash torchdeck submit alpha --nodes '')" ""
  mkdir -p "$scratch/projects/my code" "$scratch/projects/other"
  expect "--code folders" "$(complete_bash torchdeck submit alpha --code "$scratch/projects/m")" "$scratch/projects/my code"
  # zsh: the script parses, compinit registers it for torchdeck, and zle completes with it.
  zsh -n "$share/zsh/vendor-completions/_torchdeck" || fail "zsh -n"
  out=$(zsh -fc "fpath=('$share/zsh/vendor-completions' \$fpath); autoload -Uz compinit; compinit -u -d '$scratch/zcompdump'; print \$_comps[torchdeck]")
  [[ "$out" == "_torchdeck" ]] || fail "zsh: torchdeck completes with '$out'"
  complete_zsh() { # WORDS, then what the Tab must insert
    timeout 15 zsh -f "$(dirname "${BASH_SOURCE[0]}")/zsh_complete.zsh" "$share/zsh/vendor-completions" "$scratch" \
      "$(dirname "$TORCHDECK_BIN")" "$1" "$2" >/dev/null
  }
  complete_zsh "torchdeck su" bmit || fail "zsh: 'torchdeck su' did not complete to submit"
  complete_zsh "torchdeck check g" amma || fail "zsh: 'torchdeck check g' did not complete to gamma"
  complete_zsh "torchdeck submit alpha --laun" ch || fail "zsh: --laun did not complete to --launch"
  complete_zsh "torchdeck submit alpha --launch srun-p" er-node || fail "zsh: --launch's values"
  ! complete_zsh "torchdeck su" mmary || fail "zsh: the check itself is broken (it matched what was not there)"
  # fish: its own completion engine, asked what a Tab offers.
  out=$(fish -c "source '$share/fish/vendor_completions.d/torchdeck.fish'; complete -C 'torchdeck su'")
  [[ "$out" == submit$'\t'* ]] || fail "fish completes 'torchdeck su' with: $out"
  out=$(fish -c "source '$share/fish/vendor_completions.d/torchdeck.fish'; complete -C 'torchdeck check '" | paste -sd' ')
  [[ "$out" == "alpha beta gamma" ]] || fail "fish: clusters: $out"
}

case_options() { # the table and the parsers agree: every listed option is accepted, every parsed one listed
  local command option value err help
  local -a operands
  : >"$scratch/job.json"
  for command in $("$TORCHDECK_BIN" __complete commands); do
    case $command in
      completion) operands=(bash) ;; help) operands=(runs) ;;
      check | profile | script | submit | code) operands=(nosuchcluster) ;;
      runs | clusters | watch) operands=() ;; auto-restart) operands=(nosuchrun on) ;; agent) operands=(status) ;;
      forward) operands=(nosuchrun 8000) ;; pull) operands=(nosuchrun FILE) ;; tag) operands=(nosuchrun NAME) ;;
      *) operands=(nosuchrun) ;;
    esac
    # Read whole first: grep -q would stop reading at its match, and a help of over 4 KiB then dies of SIGPIPE.
    help=$("$TORCHDECK_BIN" "$command" --help) || fail "$command --help exited $?"
    grep -q "^Usage: torchdeck $command" <<<"$help" || fail "$command --help"
    while IFS=$'\t' read -r option value; do
      case $value in
        "") args=("$option") ;;
        FILE) args=("$option" "$scratch/job.json") ;; DIR) args=("$option" "$scratch") ;;
        NAME=VALUE) args=("$option" A=1) ;; RUNTIME:IMAGE) args=("$option" apptainer:x.sif) ;;
        SECONDS | N | PORT | K) args=("$option" 1) ;; TIME) args=("$option" 30) ;;
        *) args=("$option" "$("$TORCHDECK_BIN" __complete values "$command" "$option" | head -n1)")
           [[ -n "${args[1]}" ]] || args[1]=x ;;
      esac
      local -a given=("${operands[@]}")
      [[ $command == forward && $option != --json ]] && given=() # --list and --stop take no RUN REMOTE_PORT
      err=$(timeout 20 "$TORCHDECK_BIN" "$command" "${given[@]}" "${args[@]}" 2>&1 >/dev/null) || true
      if grep -qiE "unknown option|unexpected argument|needs a value|usage: torchdeck" <<<"$err"; then
        fail "torchdeck $command ${operands[*]} ${args[*]}: $err"
      fi
    done < <("$TORCHDECK_BIN" __complete options "$command")
  done
  # Every option the terminal's sources compare against is in the table (so in --help, man and completions).
  local listed
  listed=$(for command in $("$TORCHDECK_BIN" __complete commands); do "$TORCHDECK_BIN" __complete options "$command"; done |
           cut -f1 | sort -u)
  for option in $(grep -ohE 'u"--[a-z][a-z0-9-]*"' "$TORCHDECK_SOURCE_DIR"/app/term/*.cpp | sed 's/^u"//; s/"$//' | sort -u); do
    case $option in --help | --version) continue ;; esac
    grep -qx -- "$option" <<<"$listed" || fail "$option is parsed in app/term but not in the command table"
  done
}

case_deb() { # cpack's .deb: Depends resolve, no trainer, and its files run from an empty root
  need dpkg-deb; need apt-get; need xvfb-run; need xwininfo
  (cd "$TORCHDECK_BUILD_DIR" && cpack --config CPackConfig.cmake -B "$scratch/package" >"$scratch/cpack.log" 2>&1) ||
    fail "cpack: $(tail -n 20 "$scratch/cpack.log")"
  local deb
  deb=$(ls "$scratch"/package/torchdeck_*.deb) || fail "no .deb in $(ls "$scratch/package")"
  local depends
  depends=$(dpkg-deb -f "$deb" Depends)
  for lib in libqt6core6 libqt6widgets6 libqt6charts6 libssh-4 libqt6sql6-sqlite; do
    grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
  done
  ! grep -qi torch <<<"$depends" || fail "the dashboard's package depends on LibTorch: $depends"
  ! grep -q torchdeck-train <<<"$(dpkg-deb -c "$deb")" || fail "torchdeck-train is in the package"
  apt-get install --simulate "$deb" >"$scratch/apt.log" 2>&1 || fail "apt-get --simulate: $(cat "$scratch/apt.log")"
  grep -q '^Inst torchdeck ' "$scratch/apt.log" || fail "apt-get would not install it: $(cat "$scratch/apt.log")"
  dpkg-deb -x "$deb" "$scratch/unpacked"
  local bin=$scratch/unpacked/usr/bin/torchdeck
  [[ "$(cd / && "$bin" --version)" == "torchdeck $(dpkg-deb -f "$deb" Version)" ]] || fail "--version"
  [[ "$(cd / && "$bin" clusters | awk '{print $1}' | paste -sd' ')" == "alpha beta gamma" ]] || fail "clusters"
  # The window on an X server: mapped, with the WM class the desktop entry names.
  cat >"$scratch/window.sh" <<EOF
"$bin" & pid=\$!
for _ in \$(seq 1 80); do
  if xwininfo -root -tree | grep -q '"torchdeck": ("torchdeck" "torchdeck")'; then kill \$pid; exit 0; fi
  kill -0 \$pid 2>/dev/null || exit 1
  sleep 0.25
done
kill \$pid; exit 1
EOF
  xvfb-run -a bash "$scratch/window.sh" || fail "the unpacked binary showed no window under Xvfb"
}

"case_$1"
