#!/usr/bin/env bash
# test-install.sh: `cmake --install` of the build into a DESTDIR (prefix
# /usr) installs the desktop conventions, and each is valid:
#  - the AppStream metainfo (appstreamcli validate --no-net; its release is
#    the version weft-cli reports; its launchable is the installed .desktop);
#  - the .desktop file (desktop-file-validate; Exec and Icon installed; each
#    MimeType defined by the installed shared-mime-info XML);
#  - the man pages of weft and weft-cli render without a groff warning
#    (groff -ww, man --warnings), and list every option of `weft --help-all`
#    and of each `weft-cli help COMMAND`, under that command;
#  - the bash completion of weft-cli sources, completes `weft-cli an` to
#    analyze, lists exactly the commands, and every option of every command;
#  - the MIME types: after update-mime-database, GIO (gio info) types
#    rank0_trace.json[.gz|.zst] and *.pt.trace.json[.gz] as Kineto traces,
#    and leaves other JSON and gzip files alone.
# Skips (77) when a tool is missing (tests/deps.sh installs them all).
set -euo pipefail

B=${WEFT_BUILD_DIR:-.}
W=$B/weft-cli
[ -x "$W" ] || { echo "SKIP: $W not built"; exit 77; }
missing=""
for t in cmake appstreamcli desktop-file-validate groff man update-mime-database gio python3; do
  command -v "$t" >/dev/null || missing="$missing $t"
done
[ -z "$missing" ] || { echo "SKIP: missing$missing (bash tests/deps.sh installs them)"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/weft-install-XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail () { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok () { echo "ok - $*"; }

D=$T/dest
DESTDIR=$D cmake --install "$B" --prefix /usr >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; exit 1; }
S=$D/usr/share
app=0
[ -x "$D/usr/bin/weft" ] && app=1
want=("$D/usr/bin/weft-cli" "$S/man/man1/weft-cli.1" "$S/bash-completion/completions/weft-cli")
[ $app = 1 ] && want+=("$S/man/man1/weft.1" "$S/applications/org.weft.Weft.desktop"
                       "$S/metainfo/org.weft.Weft.metainfo.xml" "$S/mime/packages/org.weft.Weft.mime.xml"
                       "$S/icons/hicolor/scalable/apps/org.weft.Weft.svg")
for f in "${want[@]}"; do
  [ -f "$f" ] || fail "not installed: ${f#"$D"}"
done
ok "installed ${#want[@]} files into DESTDIR"

# ---- AppStream and the .desktop file ----------------------------------------------------------
if [ $app = 1 ]; then
  MI=$S/metainfo/org.weft.Weft.metainfo.xml
  DF=$S/applications/org.weft.Weft.desktop
  if appstreamcli validate --no-net "$MI" >"$T/as.log" 2>&1; then ok "appstreamcli validate: $(tail -1 "$T/as.log")"
  else cat "$T/as.log"; fail "appstreamcli validate $MI"; fi
  if desktop-file-validate "$DF" >"$T/dfv.log" 2>&1 && [ ! -s "$T/dfv.log" ]; then ok "desktop-file-validate"
  else cat "$T/dfv.log"; fail "desktop-file-validate $DF"; fi
  version=$("$W" --version | awk '{print $2}')
  python3 - "$MI" "$DF" "$S/mime/packages/org.weft.Weft.mime.xml" "$D" "$version" <<'EOF' || fail "metainfo / desktop / mime consistency"
import configparser, os, sys
import xml.etree.ElementTree as ET
mi, df, mx, dest, version = sys.argv[1:]
c = ET.parse(mi).getroot()
bad = []
rel = [r.get("version") for r in c.iter("release")]
if not rel or rel[0] != version:
    bad.append("metainfo's latest release %r is not weft-cli's version %r" % (rel[:1], version))
if c.findtext("launchable") != os.path.basename(df):
    bad.append("launchable %r is not %s" % (c.findtext("launchable"), os.path.basename(df)))
if c.findtext("id") + ".desktop" != os.path.basename(df):
    bad.append("component id %r does not name the desktop file" % c.findtext("id"))
cp = configparser.RawConfigParser()
cp.optionxform = str
cp.read(df)
e = cp["Desktop Entry"]
exe = e["Exec"].split()[0]
if not os.access(os.path.join(dest, "usr/bin", exe), os.X_OK):
    bad.append("Exec %s is not installed in /usr/bin" % exe)
if not os.path.exists(os.path.join(dest, "usr/share/icons/hicolor/scalable/apps", e["Icon"] + ".svg")):
    bad.append("Icon %s is not installed" % e["Icon"])
ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
defined = {t.get("type") for t in ET.parse(mx).getroot().findall("m:mime-type", ns)}
for t in filter(None, e["MimeType"].split(";")):
    if t != "inode/directory" and t not in defined:
        bad.append("MimeType %s is not defined in %s" % (t, os.path.basename(mx)))
provided = {m.text for m in c.iter("mediatype")}
if provided != defined:
    bad.append("metainfo mediatypes %s != the MIME types %s" % (sorted(provided), sorted(defined)))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
fi

# ---- man pages ------------------------------------------------------------------------------------
f0=$fails
pages=(weft-cli)
[ $app = 1 ] && pages+=(weft)
for p in "${pages[@]}"; do
  page=$S/man/man1/$p.1
  groff -ww -z -man "$page" >"$T/groff-$p.log" 2>&1 || true
  [ ! -s "$T/groff-$p.log" ] || { cat "$T/groff-$p.log"; fail "groff -ww warns on $p.1"; }
  MANWIDTH=80 man --warnings -l "$page" >"$T/man-$p.txt" 2>"$T/man-$p.err" || fail "man -l $p.1 failed"
  [ ! -s "$T/man-$p.err" ] || { cat "$T/man-$p.err"; fail "man --warnings warns on $p.1"; }
  grep -q "^NAME" "$T/man-$p.txt" && grep -q "^SYNOPSIS" "$T/man-$p.txt" || fail "$p.1 has no NAME / SYNOPSIS"
  groff -man -Tascii -P-cbou "$page" >"$T/plain-$p.txt" 2>/dev/null
done
# every option of the help text is in the page (weft-cli: in its command's section)
for c in $("$W" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}'); do
  "$W" help "$c" >"$T/help-$c.txt"
done
[ $app = 1 ] && "$D/usr/bin/weft" --help-all >"$T/help-weft.txt" 2>/dev/null
python3 - "$T" $app <<'EOF' || fail "man pages lack options of the help text"
import glob, os, re, sys
T, app = sys.argv[1], sys.argv[2] == "1"
opt = re.compile(r"^  (?:-\w, )?(--[\w-]+)", re.M)
bad = []
page = open(T + "/plain-weft-cli.txt").read()
sections = re.split(r"^   (\w[\w-]*)\n", page, flags=re.M)
by_cmd = {sections[i]: sections[i + 1] for i in range(1, len(sections) - 1, 2)}
for h in sorted(glob.glob(T + "/help-*.txt")):
    name = os.path.basename(h)[5:-4]
    if name == "weft":
        continue
    text = by_cmd.get(name)
    if text is None:
        bad.append("weft-cli.1 has no section for the command %s" % name)
        continue
    for o in opt.findall(open(h).read()):
        if o == "--help":
            continue  # every command's; the page says so once (DESCRIPTION)
        if not re.search(r"(^|[\s,])%s\b" % re.escape(o), text):
            bad.append("weft-cli.1, %s: no %s" % (name, o))
if app:
    wpage = open(T + "/plain-weft.txt").read()
    for o in opt.findall(open(T + "/help-weft.txt").read()):
        if o not in wpage:
            bad.append("weft.1: no %s" % o)
for b in bad:
    print(b)
print("checked", len(by_cmd), "commands")
sys.exit(1 if bad else 0)
EOF
[ "$fails" -gt "$f0" ] || ok "man pages render without warnings and list every option"

# ---- bash completion --------------------------------------------------------------------------------
f0=$fails
COMP=$S/bash-completion/completions/weft-cli
complete_words () {   # complete_words WORD...: COMPREPLY for the last word
  bash --norc --noprofile -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _weft_cli; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$COMP" "$@" 2>"$T/comp.err"
}
bash --norc --noprofile -c ". '$COMP' && complete -p weft-cli" >"$T/complete-p" 2>&1 ||
  fail "the completion does not source: $(cat "$T/complete-p")"
grep -q "_weft_cli weft-cli" "$T/complete-p" || fail "complete -p weft-cli: $(cat "$T/complete-p")"
[ "$(complete_words weft-cli an)" = analyze ] || fail "weft-cli an completes to '$(complete_words weft-cli an)'"
[ "$(complete_words weft-cli help ed)" = edit ] || fail "weft-cli help ed: '$(complete_words weft-cli help ed)'"
[ "$(complete_words weft-cli render x --format "" | sort | tr '\n' ' ')" = "pdf png svg " ] ||
  fail "render --format: $(complete_words weft-cli render x --format "")"
cmds=$(ls "$T"/help-*.txt | sed 's|.*/help-||; s|\.txt$||' | grep -v '^weft$' | sort | tr '\n' ' ')
got=$(complete_words weft-cli "" | grep -v -- '^-' | grep -v '^help$' | sort | tr '\n' ' ')
[ "$got" = "$cmds" ] || fail "weft-cli <TAB> gives '$got', the commands are '$cmds'"
for h in "$T"/help-*.txt; do
  c=$(basename "$h" .txt); c=${c#help-}
  [ "$c" = weft ] && continue
  complete_words weft-cli "$c" -- | sort >"$T/comp-$c"
  for o in $(grep -oE '^  (-\w, )?--[a-z0-9-]+' "$h" | grep -oE -- '--[a-z0-9-]+'); do
    grep -qx -- "$o" "$T/comp-$c" || fail "weft-cli $c --<TAB> does not offer $o"
  done
done
[ "$fails" -gt "$f0" ] || ok "bash completion: weft-cli an -> analyze; every command and option"

# ---- MIME types ----------------------------------------------------------------------------------------
if [ $app = 1 ]; then
  f0=$fails
  XDG_DATA_DIRS=$S:/usr/share update-mime-database "$S/mime" >"$T/umd.log" 2>&1 && [ ! -s "$T/umd.log" ] ||
    { cat "$T/umd.log"; fail "update-mime-database"; }
  "$W" sample "$T/s" --ranks 1 >/dev/null
  F=$T/s/profiling/traces/iteration_1/rank0_trace.json
  mkdir "$T/m"
  cp "$F" "$T/m/rank0_trace.json"
  gzip -c "$F" >"$T/m/rank0_trace.json.gz"
  "$W" convert "$F" "$T/m/rank0_trace.json.zst"
  cp "$F" "$T/m/host_1.1700000000.pt.trace.json"
  gzip -c "$F" >"$T/m/host_1.1700000000.pt.trace.json.gz"
  echo '{"a": 1}' >"$T/m/other.json"
  gzip -c "$T/m/other.json" >"$T/m/other.json.gz"
  while read -r name want; do
    got=$(XDG_DATA_HOME=$T/nohome XDG_DATA_DIRS=$S:/usr/share gio info -a standard::content-type "$T/m/$name" |
          sed -n 's/.*standard::content-type: //p')
    [ "$got" = "$want" ] || fail "$name: content type '$got', expected '$want'"
  done <<'EOF'
rank0_trace.json application/x-kineto-trace
rank0_trace.json.gz application/x-kineto-trace-gzip
rank0_trace.json.zst application/x-kineto-trace-zstd
host_1.1700000000.pt.trace.json application/x-kineto-trace
host_1.1700000000.pt.trace.json.gz application/x-kineto-trace-gzip
other.json application/json
other.json.gz application/gzip
EOF
  [ "$fails" -gt "$f0" ] || ok "gio types Kineto traces (plain, gzip, zstd) and leaves other JSON alone"
fi

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all install checks passed"
