#!/bin/bash
# torchdeck-follow, the fallback where the login node has no C compiler: the same commands and frames as
# torchdeck-follow.c (read it for the protocol), in bash. Each look costs a stat and, when it grew, a tail: slow,
# but it works with what every login node has. A replaced file is known by its inode (not by its first bytes).
set -u
export LC_ALL=C
declare -A path offset from_end once growing quiet next last_data inode
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
looks=0 sent=0
quiet_after_ms=5000 heartbeat_ms=${1:-10000} chunk=262144

now_ms() {
    if [[ -n "${EPOCHREALTIME:-}" ]]; then
        local t=${EPOCHREALTIME/[.,]/}
        echo $(( t / 1000 ))
    else
        date +%s%3N
    fi
}

drop() { unset "path[$1]" "offset[$1]" "from_end[$1]" "once[$1]" "growing[$1]" "quiet[$1]" "next[$1]" \
               "last_data[$1]" "inode[$1]"; }

number() { [[ $1 =~ ^-?[0-9]+$ ]]; }

command_line() { # LINE: one command
    local kind id a b c d e rest
    read -r kind id a b c d e rest <<<"$1"
    number "${id:-x}" || return
    case "$kind" in
        A)
            number "${a:-x}" && number "${b:-x}" && number "${c:-x}" && number "${d:-x}" && number "${e:-x}" &&
                [[ -n "$rest" ]] || return
            drop "$id"
            offset[$id]=$a from_end[$id]=$b once[$id]=$c growing[$id]=$d quiet[$id]=$e path[$id]=$rest
            next[$id]=0 last_data[$id]=$(now_ms) inode[$id]=
            ;;
        P)
            [[ -n "${path[$id]+set}" ]] && number "${a:-x}" && number "${b:-x}" || return
            growing[$id]=$a quiet[$id]=$b next[$id]=0
            ;;
        D) drop "$id" ;;
    esac
}

look() { # ID NOW
    local id=$1 now=$2 file=${path[$1]} stat size ino got=0
    looks=$((looks + 1))
    if ! stat=$(stat -L -c '%s %i' -- "$file" 2>/dev/null); then
        if [[ -e "$file" || ${once[$id]} == 1 ]]; then
            if [[ -e "$file" ]]; then printf 'f %s 13\n' "$id"; else printf 'e %s\n' "$id"; fi
            drop "$id"
            return
        fi
        next[$id]=$((now + quiet[$id]))
        return
    fi
    size=${stat% *} ino=${stat#* }
    if (( from_end[$id] > 0 )); then
        offset[$id]=$(( size > from_end[$id] ? size - from_end[$id] : 0 ))
        from_end[$id]=0
    fi
    if [[ -n "${inode[$id]}" && "${inode[$id]}" != "$ino" ]]; then
        printf 'r %s\n' "$id"
        offset[$id]=0
    elif (( size < offset[$id] )); then
        printf 't %s %s %s\n' "$id" "${offset[$id]}" "$size"
        offset[$id]=0
    fi
    inode[$id]=$ino
    if (( size > offset[$id] )); then
        local want=$(( size - offset[$id] < chunk ? size - offset[$id] : chunk ))
        tail -c +"$(( offset[$id] + 1 ))" -- "$file" 2>/dev/null | head -c "$want" >"$tmp"
        got=$(wc -c <"$tmp")
        got=${got// /}
        if (( got > 0 )); then
            printf 'd %s %s %s\n' "$id" "${offset[$id]}" "$got"
            cat "$tmp"
            offset[$id]=$(( offset[$id] + got ))
            last_data[$id]=$now
            sent=$((sent + got))
        fi
    fi
    if [[ ${once[$id]} == 1 ]] && (( offset[$id] >= size && got < chunk )); then
        printf 'e %s\n' "$id"
        drop "$id"
        return
    fi
    if (( got == chunk )); then
        next[$id]=$now
    elif (( now - last_data[$id] > quiet_after_ms )); then
        next[$id]=$((now + quiet[$id]))
    else
        next[$id]=$((now + growing[$id]))
    fi
}

printf 'v 1\n'
last_heartbeat=$(now_ms)
while :; do
    now=$(now_ms)
    due=$((last_heartbeat + heartbeat_ms))
    for id in "${!next[@]}"; do (( next[$id] < due )) && due=${next[$id]}; done
    wait_ms=$(( due > now ? due - now : 0 ))
    (( wait_ms < 1 )) && wait_ms=1
    if IFS= read -r -t "$(printf '%d.%03d' $((wait_ms / 1000)) $((wait_ms % 1000)))" line; then
        command_line "$line"
        while IFS= read -r -t 0.001 line; do command_line "$line"; done # the rest already sent
    elif (( $? <= 128 )); then
        exit 0 # the agent closed the channel
    fi
    now=$(now_ms)
    for id in "${!next[@]}"; do
        [[ -n "${path[$id]+set}" ]] && (( next[$id] <= now )) && look "$id" "$now"
    done
    if (( now - last_heartbeat >= heartbeat_ms )); then
        printf 'h %s %s\n' "$looks" "$sent"
        last_heartbeat=$now
    fi
done
