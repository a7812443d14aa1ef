#!/usr/bin/env bash
# Type-checks the Swift code of the DocC articles against the built modules, so that `make docs`
# fails when an article shows TokenVault code that no longer compiles.
#
#   Scripts/check-doc-snippets.sh CATALOG OUT_DIR SWIFTC_ARGS...
#
# Every ```swift block of an article is checked on its own, in a `do` scope of one function per
# article, except the blocks of a @Row's first @Column: those are the other SDK's side of a
# porting snippet. An article whose blocks use names they do not declare lists them in a
# @Comment, as the function's parameters, and may add file-scope declarations in a ```swift
# block inside the same @Comment; a block that starts with `import` or `#if` is file scope too:
#
#   @Comment {
#       snippet-parameters: vault: Vault, token: Token
#   }
#
# OUT_DIR receives one Swift file per article; SWIFTC_ARGS find the modules (-I ...); $SWIFTC is
# the compiler (swiftc by default). Unused values are what snippets are made of, so only errors
# count.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 CATALOG OUT_DIR SWIFTC_ARGS..." >&2; exit 2; }
catalog=$1 out=$2
shift 2

rm -rf "$out"
mkdir -p "$out"
for article in "$catalog"/*.md; do
    name=$(basename "$article" .md)
    awk -v name="$name" '
        # Errors point at the article line, through #sourceLocation.
        function flush(located) {
            located = "#sourceLocation(file: \"" FILENAME "\", line: " start ")\n" block "#sourceLocation()\n"
            if (inComment || block ~ /^ *(import|#if)/) prelude = prelude located
            else body = body "do {\n" located "}\n"
        }
        inBlock && /^ *``` *$/ { inBlock = 0; if (!skip) flush(); block = ""; next }
        inBlock { if (!skip) block = block $0 "\n"; next }
        /^@Row/ { inRow = 1; column = 0 }
        /^@Comment/ { inComment = 1 }
        /^}/ { inRow = 0; inComment = 0 }
        /^ *@Column/ { column++ }
        /^ *snippet-parameters:/ { sub(/^ *snippet-parameters: */, ""); parameters = $0 }
        /^ *```swift *$/ { inBlock = 1; skip = (inRow && column == 1); start = NR + 1 }
        END {
            if (body == "" && prelude == "") exit
            print "import Foundation\n#if canImport(FoundationNetworking)\n    import FoundationNetworking\n#endif\nimport TokenVault\n"
            printf "%s", prelude
            print "func " name "(" parameters ") async throws {"
            printf "%s", body
            print "}"
        }
    ' "$article" >"$out/$name.swift"
    [ -s "$out/$name.swift" ] || rm "$out/$name.swift"
done

shopt -s nullglob
files=("$out"/*.swift)
[ ${#files[@]} -gt 0 ] || exit 0
"${SWIFTC:-swiftc}" -typecheck -swift-version 6 -suppress-warnings "$@" "${files[@]}"
echo "check-doc-snippets: the Swift code of ${#files[@]} articles type-checks"
