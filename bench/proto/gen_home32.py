# Makes home32.go from home.go: run in this directory, then gofmt -w home32.go.
import re
body=open('home.go').read()
v=body
for a,b in [('NewHome','NewHome32'),('Home','Home32'),('slot','slot32'),('waitStable','waitStable32'),('tryLock','tryLock32'),('unlock','unlock32'),('lock','lock32'),('sequence lock32','sequence lock'),('copyElem','copyElem32'),('setElem','setElem32'),('localWords','localWords32'),('groupSlots','groupSlots32'),('takeMasked','takeMasked'),('takeNearest','takeNearest'),('nearest','nearest32')]:
    v=re.sub(r'\b'+a+r'\b',b,v)
v=v.replace("\tval  atomic.Uint64 // the 8 value bytes, little-endian\n}",'\tval  atomic.Uint64\n\t_    uint64 // pad to 32 B: a slot never straddles a cache line\n}',1)
v=v.replace('// Home32: 24-byte slots (see the package comment).','// Code made from home.go by gen_home32.py: Home -> Home32, the slot padded to 32 bytes.')
v=v.replace('const groupSlots32 = 8','const groupSlots32 = 4 // 4 x 32 B: one 128-B line pair')
open('home32.go','w').write(v)
