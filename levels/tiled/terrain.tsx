<?xml version="1.0" encoding="UTF-8"?>
<!-- Estoc's terrain tiles (assets/tiles/terrain.png) as a Tiled tileset: each tile's `terrain` property is
     the level character it stands for (docs/editing.md, "Importing from Tiled"). -->
<tileset version="1.10" tiledversion="1.10.2" name="estoc-terrain" tilewidth="64" tileheight="64" tilecount="11" columns="11">
 <image source="../../assets/tiles/terrain.png" width="704" height="64"/>
 <tile id="0"><properties><property name="terrain" value="."/></properties></tile>
 <tile id="1"><properties><property name="terrain" value=":"/></properties></tile>
 <tile id="2"><properties><property name="terrain" value="%"/></properties></tile>
 <tile id="3"><properties><property name="terrain" value="wall"/></properties></tile>
 <tile id="4"><properties><property name="terrain" value="low wall"/></properties></tile>
 <tile id="5"><properties><property name="terrain" value="pit"/></properties></tile>
 <tile id="6"><properties><property name="terrain" value="water"/></properties></tile>
 <tile id="7"><properties><property name="terrain" value="."/></properties></tile>
 <tile id="8"><properties><property name="terrain" value=","/></properties></tile>
 <tile id="9"><properties><property name="terrain" value="undergrowth"/></properties></tile>
 <tile id="10"><properties><property name="terrain" value="deep water"/></properties></tile>
</tileset>
