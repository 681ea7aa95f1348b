"""The PDF sheets' fonts: every character a sheet can print is in a font of the stack (digits, fractions,
signs, every string of the interface in every language: Chinese, Japanese kana, Cyrillic), and a half point
is printed with a proper ½ — the glyph
embedded in the PDF, rasterised, has its 2 (WenQuanYi Micro Hei's ½ has none: every half point came out
as "¹⁄")."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fontTools.pens.recordingPen import DecomposingRecordingPen
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw
from pypdf import PdfReader

from tournament.pdf import PDF_CSS

ROOT = Path(__file__).resolve().parents[2]
SIGNS = "0123456789½¼¾–—·✓●○×+-=()/:%#"


def stack() -> list[str]:
    families = re.search(r"font-family:([^;]+);", PDF_CSS)
    assert families
    return [f.strip().strip('"') for f in families.group(1).split(",") if f.strip() != "sans-serif"]


def installed(family: str) -> Path | None:
    found = subprocess.run(["fc-match", "-f", "%{family}\t%{file}", family], capture_output=True, text=True)
    name, _tab, path = found.stdout.partition("\t")
    return Path(path) if family.lower() in name.lower() else None


def test_every_character_a_sheet_can_print_is_in_a_font_of_the_stack() -> None:
    files = [f for f in (installed(family) for family in stack()) if f is not None]
    assert files and "DejaVu" in files[0].name  # Latin, digits and fractions first
    covered: set[int] = set()
    for file in files:
        with TTFont(file, fontNumber=0, lazy=True) as font:
            covered |= set(font.getBestCmap())
    wanted = set(SIGNS)
    for po_file in sorted(ROOT.glob("locale/*/LC_MESSAGES/django.po")):  # every language's strings
        po = po_file.read_text(encoding="utf-8")
        wanted |= {c for line in re.findall(r'^msgstr(?:\[\d\])? "(.*)"$', po, re.M) for c in line if ord(c) > 0x7F}
    missing = sorted(c for c in wanted if ord(c) not in covered)
    assert not missing, f"no font of the PDF stack has {''.join(missing)!r}"


def _glyph_image(font: TTFont, glyph: str, size: int = 200) -> Image.Image:
    """The glyph's outline filled (quadratic curves flattened), scaled into a ``size`` square."""
    pen = DecomposingRecordingPen(font.getGlyphSet())
    font.getGlyphSet()[glyph].draw(pen)
    units = font["head"].unitsPerEm
    image = Image.new("1", (size, size), 0)
    draw = ImageDraw.Draw(image)

    def at(point: tuple[float, float]) -> tuple[float, float]:
        return point[0] * size / units, size - (point[1] + units * 0.2) * size / units

    contour: list[tuple[float, float]] = []
    for op, args in pen.value:
        if op == "moveTo":
            contour = [at(args[0])]
        elif op == "lineTo":
            contour.append(at(args[0]))
        elif op in ("qCurveTo", "curveTo"):
            start = contour[-1] if contour else at(args[-1])
            points = [start, *[at(a) for a in args]]
            for step in range(1, 9):  # a coarse flattening is enough to see ink
                t = step / 8
                x = sum(p[0] for p in points) / len(points) * (1 - t) + points[-1][0] * t
                y = sum(p[1] for p in points) / len(points) * (1 - t) + points[-1][1] * t
                contour.append((x, y))
        elif op in ("closePath", "endPath") and len(contour) > 2:
            draw.polygon(contour, fill=1)
            contour = []
    return image


@pytest.mark.django_db
def test_a_half_point_in_a_pdf_is_printed_with_its_two() -> None:
    from weasyprint import HTML

    pdf = HTML(string=f"<html><head><style>{PDF_CSS}</style></head><body><p>积分 6½ 分</p></body></html>").write_pdf()
    page = PdfReader(io.BytesIO(pdf)).pages[0]
    resources: Any = page["/Resources"]
    for ref in resources["/Font"].values():
        font_dict: Any = ref.get_object()
        cmap = font_dict["/ToUnicode"].get_object().get_data().decode("latin-1")
        half = re.search(r"<([0-9A-Fa-f]{4})>\s*<00[Bb][Dd]>", cmap)
        if half:
            break
    else:
        raise AssertionError("no font of the PDF maps a glyph to ½")
    descriptor = font_dict["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
    assert "DejaVu" in str(descriptor["/FontName"])
    embedded = TTFont(io.BytesIO(descriptor["/FontFile2"].get_object().get_data()))
    glyph = embedded.getGlyphOrder()[int(half.group(1), 16)]  # CID = glyph id (Identity)

    image = _glyph_image(embedded, glyph)
    width, height = image.size
    lower_right = image.crop((width // 2, height // 2, width, height))
    upper_left = image.crop((0, 0, width // 2, height // 2))
    assert lower_right.getbbox() is not None, "the ½ printed has no 2"
    assert upper_left.getbbox() is not None, "the ½ printed has no 1"
    with TTFont(installed("DejaVu Sans"), fontNumber=0) as reference:
        assert _glyph_image(reference, reference.getBestCmap()[0xBD]).tobytes() == image.tobytes()
