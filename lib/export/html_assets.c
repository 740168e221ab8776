/*
 * html_assets.c - the HTML report's style and script, compiled into the
 * binary so that `threadlens html` needs nothing at run time.
 *
 * The assembler copies the files in (.incbin, paths from the top of the
 * source tree, where make runs), each followed by a NUL so that C sees a
 * string.  The script's files are joined in the order html/util.js says;
 * the Makefile rebuilds this object when one of them changes.
 */

__asm__(".section .rodata\n"
        ".global tl_html_css\n"
        "tl_html_css:\n"
        ".incbin \"lib/export/html/style.css\"\n"
        ".byte 0\n"
        ".global tl_html_js\n"
        "tl_html_js:\n"
        ".incbin \"lib/export/html/util.js\"\n"
        ".incbin \"lib/export/html/model.js\"\n"
        ".incbin \"lib/export/html/timeline.js\"\n"
        ".incbin \"lib/export/html/views.js\"\n"
        ".incbin \"lib/export/html/frames.js\"\n"
        ".incbin \"lib/export/html/profile.js\"\n"
        ".incbin \"lib/export/html/predict.js\"\n"
        ".incbin \"lib/export/html/app.js\"\n"
        ".byte 0\n"
        ".previous\n");
