"""The word that labels a number: what the writer said the number is.

A nine-digit number is a social security number when "SSN" stands before it and a part
number when "part" does. :func:`label_around` reads the few words before a number (and,
failing that, the two after it) and returns the nearest label it knows:

- ``benign``: order, invoice, part, SKU, ISBN, phone, version, shipment and the like;
- ``card``: card, credit, Visa, Mastercard… (in several languages);
- ``identity``: the names of identity, tax, social security, passport and licence numbers
  of many countries.
"""

from __future__ import annotations

import re

from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = [
    "BENIGN",
    "CARD",
    "IDENTITY",
    "label_around",
    "may_name_an_identity",
    "may_name_one_here",
    "names_an_identity",
]

BENIGN = "benign"
CARD = "card"
IDENTITY = "identity"

_BENIGN_WORDS = """
coordinates coordinate lat lon lng latitude longitude usd eur gbp part parts pn order orders
ord invoice inv sku item items article art model ref reference
ticket case incident issue bug pr po purchase lot batch catalog catalogue cat product
shipment parcel package awb waybill consignment booking confirmation reservation pnr
transaction txn tx receipt bill customer client member membership employee student account
isbn issn doi ean upc gtin asin mpn isin cusip sedol phone tel telephone mobile cell fax
call whatsapp build version release job run pipeline commit revision rev request req trace
span correlation message msg zip postal postcode plz cep room flight train seat gate vin
imei mac ip port route table row line page chapter section figure step qty quantity amount
total price cost size weight sha hash checksum crc md5 uuid guid nonce epoch timestamp unix
serial sn patent claim policy contract quote quotation estimate project task story sprint
bestellung bestellnummer rechnung rechnungsnummer artikel artikelnummer auftrag kunde
commande facture pedido factura fattura ordine bestelling factuur ordre faktura tracking
sendung lieferung envio colis spedizione zending
"""
_CARD_WORDS = """
card cards cc ccn credit debit visa mastercard amex discover diners jcb unionpay maestro
mir rupay kreditkarte karte carte tarjeta cartão cartao carta kaart kort karta kartu карта
карты bankcard
"""
_IDENTITY_WORDS = """
ssn ss itin ein tin taxpayer tfn nino nhs sin nas bsn burgerservicenummer sofinummer
personnummer personnr fødselsnummer fodselsnummer cpr henkilötunnus hetu kennitala pesel
nip dni nie nif nss codice fiscale steuerid steuer steuernummer steueridentifikationsnummer idnr
identifikationsnummer sozialversicherungsnummer svnr versicherungsnummer personalausweis
ausweisnummer ausweis personalausweisnummer reisepass reisepassnummer passnummer passport
passeport pasaporte passaporto paspoort passaporte pasport paszport cédula cedula curp rfc rut
cuil cuit dui cpf aadhaar aadhar
nric hkid mykad nik ktp cnic iqama kimlik tckn cnp egn oib jmbg emšo emso snils снилс инн
паспорт isikukood amka αμκα αφμ afm medicare medicaid mbi licence license dl ppsn pps ird
nhi abn pan rg
"""
_NATIONALITIES = """
african american british canadian indian chinese japanese korean brazilian mexican german
french spanish italian dutch swedish norwegian danish finnish polish turkish israeli saudi
emirati kenyan nigerian egyptian pakistani indonesian malaysian thai filipino vietnamese
resident voter civil citizen citizens government
"""
_IDENTITY_PHRASES = (
    ("social", "security"),
    ("social", "insurance"),
    ("national", "insurance"),
    ("national", "id"),
    ("national", "identity"),
    ("identity", "number"),
    ("identity", "card"),
    ("identification", "number"),
    ("id", "card"),
    ("personal", "id"),
    ("personal", "number"),
    ("personal", "identity"),
    ("citizen", "id"),
    ("tax", "id"),
    ("tax", "number"),
    ("tax", "file"),
    ("emirates", "id"),
    ("tc", "kimlik"),
    ("asmens", "kodas"),
    ("personas", "kods"),
    ("rodné", "číslo"),
    ("rodne", "cislo"),
    ("codice", "fiscale"),
    ("pan", "card"),
    ("pan", "number"),
    ("ni", "number"),
    ("ni", "no"),
    ("sécurité", "sociale"),
    ("securite", "sociale"),
    ("seguridad", "social"),
    ("seguro", "social"),
    ("segurança", "social"),
    ("previdenza", "sociale"),
    *((nationality, "id") for nationality in _NATIONALITIES.split()),
)
# "ID number" names an identity number unless a word such as "order" stands before it.
_ID_PHRASES = frozenset({("id", "number"), ("id", "no"), ("id", "nr"), ("id", "num")})
# Labels written without spaces in their script; found inside a longer run of letters.
_IDENTITY_INFIXES = (
    "身份证", "身份證", "居民身份", "マイナンバー", "個人番号", "주민등록", "주민번호", "护照",
    "護照", "旅券", "여권", "الهوية", "جواز", "תעודת", "ת.ז",
)  # fmt: skip
_CARD_INFIXES = ("卡号", "信用卡", "銀行卡", "カード", "카드", "بطاقة", "כרטיס")

_LABELS: dict[str, str] = {
    **{word: BENIGN for word in _BENIGN_WORDS.split()},
    **{word: CARD for word in _CARD_WORDS.split()},
    **{word: IDENTITY for word in _IDENTITY_WORDS.split()},
}
_PHRASES = {phrase: IDENTITY for phrase in _IDENTITY_PHRASES}
_WORDS = re.compile(r"[^\W\d_]+")
# Every ASCII word that can start an identity label, to skip the search when none occurs.
_IDENTITY_KEYS = frozenset(
    word.encode()
    for word in (*_IDENTITY_WORDS.split(), *(first for first, _ in _IDENTITY_PHRASES))
    if word.isascii()
)
_ID_NOUNS = frozenset({b"number", b"no", b"nr", b"num"})


def may_name_an_identity(text: Text) -> bool:
    """False when no word of the text can be (part of) an identity label."""
    if not text.value.isascii() or text.mentions(_IDENTITY_KEYS):
        return True
    return b"id" in text.words and text.mentions(_ID_NOUNS)


_BEFORE = 48
# "44051401359 (PESEL)": a label right after the number, closed by a parenthesis or the end.
_AFTER_LABEL = re.compile(r"[ \t]*[(\[][ \t]*([^\W\d_]+)[ \t]*[)\]]|[ \t]+([^\W\d_]+)[ \t]*[.,;]?$")


def _infix(word: str) -> str | None:
    if word.isascii():
        return None
    if any(infix in word for infix in _IDENTITY_INFIXES):
        return IDENTITY
    if any(infix in word for infix in _CARD_INFIXES):
        return CARD
    return None


# Short labels that are also ordinary words or name parts count only in capitals ("RG").
_CAPITALS_ONLY = frozenset({"rg", "dl", "ss", "sin", "pan", "nie", "nip", "rut", "dni", "tin"})


def _lowered(words: list[str]) -> list[str]:
    return [
        word.lower() if not (word.lower() in _CAPITALS_ONLY and not word.isupper()) else ""
        for word in words
    ]


def _nearest(words: list[str]) -> str | None:
    words = _lowered(words)
    for index in range(len(words) - 1, -1, -1):
        pair = (words[index - 1], words[index]) if index else ("", "")
        if pair in _PHRASES:
            return IDENTITY
        if pair in _ID_PHRASES and (index < 2 or _LABELS.get(words[index - 2]) != BENIGN):
            return IDENTITY
        word = words[index]
        found = _LABELS.get(word) or _infix(word)
        if found is not None:
            return found
    return None


# Every word that can make _nearest answer: each label and each word of a phrase. An
# ASCII stretch that holds none of them has no label.
_CUES = frozenset(_LABELS) | {word for phrase in (*_PHRASES, *_ID_PHRASES) for word in phrase}
# Every word that can make _nearest answer IDENTITY: the identity labels and the words
# that end an identity phrase.
_IDENTITY_CUES = frozenset(
    {word for word, label in _LABELS.items() if label == IDENTITY}
    | {last for _, last in (*_PHRASES, *_ID_PHRASES)}
)
_ASCII_WORDS = re.compile(r"[a-z]+")


# The end of a sentence: a word in lower case, then ".", "!" or "?" and a blank. Capitals
# ("IdNr."), short words ("No.", "nr.") and words that end as "number" is shortened
# ("Ausweisnr.") make a dot an abbreviation's instead.
_SENTENCE_END = re.compile(r"([^\W\d_]+)[.!?][ \t\n]")
_SHORT_FOR_NUMBER = ("nr", "no", "num", "nro", "nbr", "nummer")


def _reach(text: Text, start: int) -> int:
    # A label names the number right after it: another number in between, the end of the
    # sentence the label stood in, or the end of its line, ends its reach.
    reach = max(0, start - _BEFORE)
    reach = max(reach, text.shape.rfind(b"0", reach, start) + 1)
    window = text.value[reach:start]
    line = window.rfind("\n")
    if line >= 0 and window[line + 1 :].strip():
        # Only a number that opens its line takes a label from the line above ("SSN:\n…").
        reach += line + 1
        window = window[line + 1 :]
    if "." in window or "!" in window or "?" in window:
        for sentence in _SENTENCE_END.finditer(text.value, reach, start):
            if _ends_a_sentence(sentence.group(1)):
                reach = sentence.end()
    return reach


def _ends_a_sentence(word: str) -> bool:
    return len(word) >= 4 and word.islower() and not word.endswith(_SHORT_FOR_NUMBER)


def _lacks(text: Text, reach: int, start: int, cues: frozenset[str]) -> bool:
    """True when the stretch is ASCII and none of its words is one of ``cues``.

    On ASCII, the lowercase view holds each word of the value in lower case at the same
    place, so its words are the ones :func:`_nearest` would lower one by one.
    """
    if not text.value.isascii() and not text.value[reach:start].isascii():
        return False
    return cues.isdisjoint(_ASCII_WORDS.findall(text.lower, reach, start))


def label_around(text: Text, start: int, end: int) -> str | None:
    """The nearest label among the five words before ``start`` (or the two after ``end``)."""
    reach = _reach(text, start)
    if not _lacks(text, reach, start, _CUES):
        found = _nearest(_WORDS.findall(text.value, reach, start)[-5:])
        if found is not None:
            return found
    return _label_after(text, end)


def _label_after(text: Text, end: int) -> str | None:
    after = _AFTER_LABEL.match(text.value, end)
    if after is None:
        return None
    found = _nearest([after.group(1) or after.group(2)])
    return found if found != BENIGN else None


def names_an_identity(text: Text, start: int, end: int) -> bool:
    """``label_around(text, start, end) == IDENTITY``, without reading words that cannot be."""
    if _lacks(text, _reach(text, start), start, _IDENTITY_CUES):
        # No word before can make the label IDENTITY: only the label after still can, and
        # only when the words before have none at all.
        return _AFTER_LABEL.match(text.value, end) is not None and (
            label_around(text, start, end) == IDENTITY
        )
    return label_around(text, start, end) == IDENTITY


def may_name_one_here(text: Text, start: int, end: int) -> bool:
    """False when no number inside ``start:end`` can have an identity label.

    The label of a number inside the stretch is read from the words between ``start - 48``
    and the number, and from the words right after it; all of them lie in the stretch,
    except the words after its end and a word that runs on past it. When the stretch is
    ASCII, holds no word that can make the label IDENTITY, is not followed by a character
    outside ASCII (which could continue its last word) and no label follows its end, none
    of its numbers has one.
    """
    value = text.value
    if end < len(value) and not value[end].isascii():
        return True
    if not _lacks(text, max(0, start - _BEFORE), end, _IDENTITY_CUES):
        return True
    return value[end : end + 1] in _AFTER_OPENERS and _AFTER_LABEL.match(value, end) is not None


# Both branches of _AFTER_LABEL open with one of these.
_AFTER_OPENERS = frozenset(" \t([")
